// The kernel-free player: replays the frames (deltas) over the one laid-out SVG.
// Shipped as package data; tapeviz/viz/html_page.py inlines it into each exported page.
(function(){
var root=document.getElementById('tapeviz-player');
var frames=JSON.parse(document.getElementById('tapeviz-frames').textContent);
var boxes=JSON.parse(document.getElementById('tapeviz-boxes').textContent);
var paths=JSON.parse(document.getElementById('tapeviz-paths').textContent);
var links=JSON.parse(document.getElementById('tapeviz-links').textContent);
var spots=JSON.parse(document.getElementById('tapeviz-spots').textContent);  // where each badge and edge label sits (placed once, in Python)
var style=JSON.parse(document.getElementById('tapeviz-style').textContent);
var view=root.querySelector('.tv-view'); var svg=view.querySelector('svg'); var graph=svg.querySelector('g.graph');
var NS='http://www.w3.org/2000/svg';
function el(tag,attrs){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);return e;}
var mark=style.forward?'tv-ahead':'tv-back';
var defs=el('defs',{}); var marker=el('marker',{id:mark,viewBox:'0 0 10 10',refX:10,refY:5,markerWidth:5,markerHeight:5,orient:style.forward?'auto':'auto-start-reverse'});
marker.appendChild(el('path',{d:'M0,0 L10,5 L0,10 z',fill:style.flow})); defs.appendChild(marker); svg.insertBefore(defs,svg.firstChild);
var still=el('g',{'class':'tv-links'}); graph.appendChild(still);
// each link is a list of points, bent around the nodes it does not connect (tapeviz/viz/svg_frames.py link_routes)
links.forEach(function(l){if(l.length<2)return;
  still.appendChild(el('path',{d:'M'+l.map(function(p){return p[0]+','+p[1];}).join(' L'),fill:'none',stroke:'#7c3aed','stroke-width':1.5,'stroke-dasharray':'2,3'}));});
var layer=el('g',{'class':'tapeviz-overlay'}); graph.appendChild(layer);
var slider=root.querySelector('.tv-slider'), caption=root.querySelector('.tv-caption'), cardBox=root.querySelector('.tv-card');
var playBtn=root.querySelector('.tv-play'), speed=root.querySelector('.tv-speed');
var predict=root.querySelector('.tv-predict'), guessBox=root.querySelector('.tv-guess'), guess=root.querySelector('.tv-guess-input'), verdict=root.querySelector('.tv-verdict');
var current=-1, timer=null, badges={}, edges={}, revealed={}; slider.max=frames.length-1;
var W0=svg.width.baseVal.value, H0=svg.height.baseVal.value, zoom=1;
function replay(i){badges={};edges={};var s=i;while(s>0&&!frames[s].clear)s--;
  for(var k=s;k<=i;k++)apply(frames[k]);}
function apply(f){if(f.clear){badges={};edges={};} var k; for(k in (f.set||{}))badges[k]=f.set[k]; for(k in (f.edges||{}))edges[k]=f.edges[k];}
function answerOf(f){if(!f.card||f.card.seed||!f.card.rows.length)return null;
  if(f.card.fwd){var a=parseFloat(f.card.ans);return isNaN(a)?null:a;} var r=f.card.rows[0];
  var m=String(r[3]).split(' = ');var v=parseFloat(m[m.length-1]);return isNaN(v)?null:v;}
function hiding(i){return predict.checked&&!revealed[i]&&answerOf(frames[i])!==null;}
function text(tag,t,cls){var e=document.createElement(tag);e.textContent=t;if(cls)e.className=cls;return e;}
function drawCard(f,hide){cardBox.innerHTML='';var c=f.card;if(!c)return;var t=document.createElement('table');
  if(c.fwd){drawTangentCard(c,t,hide);cardBox.appendChild(t);return;}
  if(c.seed){c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td','seed'));
    tr.appendChild(text('td',r[0]+' = '+r[3]));t.appendChild(tr);});cardBox.appendChild(t);return;}
  var h=document.createElement('tr');h.appendChild(text('th',c.op+' \u2192 '+c.out));var fm=text('th',c.f,'tv-formula');fm.colSpan=4;h.appendChild(fm);t.appendChild(h);
  var hd=document.createElement('tr');['to','upstream','local derivative','upstream \u00d7 local','collected at the input'].forEach(function(x){hd.appendChild(text('td',x,'tv-head'));});t.appendChild(hd);
  c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td',r[0]));tr.appendChild(text('td',c.up));
    tr.appendChild(text('td',r[1]||c.f));tr.appendChild(text('td',hide?'? (your turn)':r[3],'tv-product'));
    tr.appendChild(text('td',hide?'?':r[4]));t.appendChild(tr);});
  cardBox.appendChild(t);}
function drawTangentCard(c,t,hide){
  if(c.seed){c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td','tangent'));
    tr.appendChild(text('td',r[0]+' = '+r[1]));t.appendChild(tr);});return;}
  var h=document.createElement('tr');h.appendChild(text('th',c.op+' \u2192 '+c.out));var fm=text('th',c.f,'tv-formula');fm.colSpan=3;h.appendChild(fm);t.appendChild(h);
  var hd=document.createElement('tr');['from','tangent in','local derivative','local \u00d7 tangent'].forEach(function(x){hd.appendChild(text('td',x,'tv-head'));});t.appendChild(hd);
  c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td',r[0]));tr.appendChild(text('td',r[1]));
    tr.appendChild(text('td',r[2]));tr.appendChild(text('td',hide?'? (your turn)':r[3],'tv-product'));t.appendChild(tr);});
  var last=document.createElement('tr');var tot=text('td',hide?'? (your turn)':c.tot,'tv-product');tot.colSpan=4;last.appendChild(tot);t.appendChild(last);}
function draw(){var f=frames[current]; var hide=hiding(current);
  while(layer.firstChild)layer.removeChild(layer.firstChild);
  (f.hidden||[]).forEach(function(id){var b=boxes[id];if(!b)return;
    layer.appendChild(el('rect',{x:b[0]-2,y:b[1]-2,width:b[2]-b[0]+4,height:b[3]-b[1]+4,fill:'white','fill-opacity':0.9}));});
  if(!hide)(f.flow||[]).forEach(function(id){var p=paths[id];if(!p)return;
    var path=el('path',{d:'M'+p.map(function(q){return q[0]+','+q[1];}).join(' L'),fill:'none',stroke:style.flow,'stroke-width':3,'class':'tv-flow'});path.setAttribute(style.forward?'marker-end':'marker-start','url(#'+mark+')');layer.appendChild(path);});
  Object.keys(edges).sort().forEach(function(id){var p=paths[id];if(!p||(hide&&(f.edges||{})[id]))return;var m=p[Math.floor(p.length/2)];
    var q=spots[id]||[m[0]+3,m[1]-7];  // the label's corner, placed once in Python off nodes and badges
    var w=6*edges[id].length+6; var g=el('g',{'class':'tv-edge-grad'});
    g.appendChild(el('rect',{x:q[0],y:q[1],width:w,height:13,rx:3,fill:'white','fill-opacity':0.85}));
    var t=el('text',{x:q[0]+3,y:q[1]+10,'font-size':10,'font-family':'Helvetica,Arial,sans-serif',fill:style.flow});t.textContent=edges[id];g.appendChild(t);layer.appendChild(g);});
  if(f.node&&boxes[f.node]){var b=boxes[f.node];
    layer.appendChild(el('rect',{x:b[0]-4,y:b[1]-4,width:b[2]-b[0]+8,height:b[3]-b[1]+8,rx:6,fill:'none',stroke:'#f59e0b','stroke-width':4}));}
  Object.keys(badges).sort().forEach(function(id){var b=boxes[id];if(!b||(f.hidden||[]).indexOf(id)>=0)return;
    if(hide&&(f.set||{})[id])return;
    var label=badges[id]; var w=6.2*label.length+8;
    var p=spots[id]||[b[2]+3,b[3]-16];
    layer.appendChild(el('rect',{x:p[0],y:p[1],width:w,height:16,rx:4,fill:style.badge,stroke:style.badge_edge}));
    var t=el('text',{x:p[0]+4,y:p[1]+12,'font-size':11,'font-family':'Helvetica,Arial,sans-serif',fill:style.badge_text});
    t.textContent=label; layer.appendChild(t);});
  caption.textContent='step '+current+' of '+(frames.length-1)+': '+(hide?f.caption.split(';')[0]+'; what is '+style.ask+'?':f.caption);
  drawCard(f,hide); guessBox.style.display=hide?'':'none'; if(hide){verdict.textContent='';guess.value='';}
  if(f.node&&boxes[f.node])follow(boxes[f.node]); fitFrame();}
function show(i){i=Math.max(0,Math.min(frames.length-1,i));
  if(i===current+1&&current>=0)apply(frames[i]);else if(i!==current)replay(i);
  current=i; slider.value=current; draw();}
function follow(b){var ctm=graph.getCTM(); if(!ctm)return; var p=svg.createSVGPoint();
  p.x=(b[0]+b[2])/2;p.y=(b[1]+b[3])/2;var q=p.matrixTransform(ctm);
  var x=q.x*svg.getBoundingClientRect().width/svg.viewBox.baseVal.width, y=q.y*svg.getBoundingClientRect().height/svg.viewBox.baseVal.height;
  if(x<view.scrollLeft+40||x>view.scrollLeft+view.clientWidth-40)view.scrollLeft=x-view.clientWidth/2;
  if(y<view.scrollTop+40||y>view.scrollTop+view.clientHeight-40)view.scrollTop=y-view.clientHeight/2;}
function setZoom(z){zoom=Math.max(0.1,Math.min(8,z));svg.setAttribute('width',(W0*zoom)+'px');svg.setAttribute('height',(H0*zoom)+'px');
  root.querySelector('.tv-zoom-level').textContent=Math.round(zoom*100)+'%';if(current>=0)draw();}
function fit(){var z=Math.min(view.clientWidth/W0,1);setZoom(z>0?z:1);}
function stop(){if(timer){clearInterval(timer);timer=null;}playBtn.textContent='\u25B6 play';}
function play(){if(timer){stop();return;} if(current>=frames.length-1)show(0);
  playBtn.textContent='\u23F8 pause';
  timer=setInterval(function(){if(current>=frames.length-1||hiding(current)){stop();return;}show(current+1);},parseInt(speed.value));}
function check(){var want=answerOf(frames[current]);var got=parseFloat(guess.value);if(want===null)return;
  var ok=!isNaN(got)&&Math.abs(got-want)<=1e-3*Math.max(1,Math.abs(want))+5e-4;
  revealed[current]=true; draw(); verdict.textContent=(ok?'\u2714 right: ':'\u2718 not quite: ')+style.ask+' = '+want;
  verdict.className='tv-verdict '+(ok?'tv-right':'tv-wrong'); guessBox.style.display='';}
root.querySelector('.tv-first').onclick=function(){stop();show(0);};
root.querySelector('.tv-back').onclick=function(){stop();show(current-1);};
root.querySelector('.tv-next').onclick=function(){stop();show(current+1);};
root.querySelector('.tv-last').onclick=function(){stop();show(frames.length-1);};
root.querySelector('.tv-zoom-in').onclick=function(){setZoom(zoom*1.25);};
root.querySelector('.tv-zoom-out').onclick=function(){setZoom(zoom/1.25);};
root.querySelector('.tv-zoom-fit').onclick=fit;
root.querySelector('.tv-check').onclick=check; guess.onkeydown=function(e){if(e.key==='Enter')check();};
predict.onchange=function(){revealed={};draw();};
var drag=null; view.onmousedown=function(e){drag=[e.clientX,e.clientY,view.scrollLeft,view.scrollTop];view.style.cursor='grabbing';};
window.addEventListener('mouseup',function(){drag=null;view.style.cursor='grab';});
view.onmousemove=function(e){if(!drag)return;view.scrollLeft=drag[2]-(e.clientX-drag[0]);view.scrollTop=drag[3]-(e.clientY-drag[1]);};
view.addEventListener('wheel',function(e){if(!e.ctrlKey)return;e.preventDefault();setZoom(zoom*(e.deltaY<0?1.1:1/1.1));},{passive:false});
playBtn.onclick=play; slider.oninput=function(){stop();show(parseInt(slider.value));};
speed.onchange=function(){if(timer){stop();play();}};
// Embedded in an <iframe srcdoc> (a notebook's output, a docs page): the frame takes the player's height, with
// no blank below it; it only grows after that, so the page does not jump as the steps' cards change size.
var host=null; try{host=window.frameElement;}catch(e){}
if(host){try{view.style.maxHeight=Math.max(300,Math.round(0.75*window.parent.innerHeight))+'px';}catch(e){view.style.maxHeight='600px';}}
var fitted=false;
function fitFrame(){if(!host)return; var h=Math.ceil(root.getBoundingClientRect().bottom+(window.scrollY||0))+8;
  if(!fitted||h>host.clientHeight){host.style.height=h+'px';fitted=true;}}
setZoom(1); show(0);
})();

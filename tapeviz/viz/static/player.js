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
var predict=root.querySelector('.tv-predict'), askBox=root.querySelector('.tv-ask'), scoreBox=root.querySelector('.tv-score');
// Predict mode: the questions are the frames' data ("ask"); the rules and every word said come from
// tapeviz/viz/predict.py (its judge() and Quiz are the same logic in Python).
var rules=JSON.parse(document.getElementById('tapeviz-predict').textContent), said=rules.said, numberRe=new RegExp(rules.number);
var current=-1, timer=null, badges={}, edges={}, given={}; slider.max=frames.length-1;
var W0=svg.width.baseVal.value, H0=svg.height.baseVal.value, zoom=1;
function replay(i){badges={};edges={};var s=i;while(s>0&&!frames[s].clear)s--;
  for(var k=s;k<=i;k++)apply(frames[k]);}
function apply(f){if(f.clear){badges={};edges={};} var k; for(k in (f.set||{}))badges[k]=f.set[k]; for(k in (f.edges||{}))edges[k]=f.edges[k];}
function asks(i){return frames[i].ask||[];}
function record(i,p){return given[i+':'+p]||{status:null,typed:'',message:'',wrong:0};}
function currentQ(i){var q=asks(i);for(var p=0;p<q.length;p++){var s=record(i,p).status;if(s!=='right'&&s!=='revealed')return p;}return -1;}
function hiding(i){return predict.checked&&currentQ(i)>=0;}
function pending(i){var out={},start=currentQ(i);if(start<0)return out;
  asks(i).forEach(function(q,n){if(n>=start)out[q.row+':'+q.cell]=n+1;});return out;}
function close(got,want){return Math.abs(got-want)<=rules.tolerance[0]*Math.max(1,Math.abs(want))+rules.tolerance[1];}
function num(v){return String(Number(v.toPrecision(4)));}
// messages are shipped once, in rules.texts; the questions hold their indices
function teaching(q,got){for(var k=0;k<q.hints.length;k++)if(close(got,q.hints[k][0]))return rules.texts[q.hints[k][1]];
  return rules.texts[q.otherwise].replace('{needed}',q.upstream?num(got/q.upstream):'?');}
function judge(q,typed,wrong){if(!numberRe.test(typed))return ['unreadable',said.unreadable];var got=parseFloat(typed);
  if(close(got,q.answer))return ['right',wrong?said.second:said.first];
  if(wrong+1>=rules.tries)return ['revealed',said.revealed.replace('{reveal}',q.reveal)];
  return ['retry',said.retry.replace('{teaching}',teaching(q,got))];}
function scoreText(){var first=0,answered=0;Object.keys(given).forEach(function(k){var g=given[k];
  if(g.status==='right'||g.status==='revealed'){answered++;if(g.status==='right'&&!g.wrong)first++;}});
  return answered?said.score.replace('{first}',first).replace('{answered}',answered):said.nothing;}
function text(tag,t,cls){var e=document.createElement(tag);e.textContent=t;if(cls)e.className=cls;return e;}
function unknown(n){return '? ('+n+')';}
function drawCard(f,hidden){cardBox.innerHTML='';var c=f.card;if(!c)return;var t=document.createElement('table');
  if(c.fwd){drawTangentCard(c,t,hidden['0:total']);cardBox.appendChild(t);return;}
  if(c.upd){drawUpdateCard(c,t);cardBox.appendChild(t);return;}
  if(c.seed){c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td','seed'));
    tr.appendChild(text('td',r[0]+' = '+r[3]));t.appendChild(tr);});cardBox.appendChild(t);return;}
  var h=document.createElement('tr');h.appendChild(text('th',c.op+' \u2192 '+c.out));var fm=text('th',c.f,'tv-formula');fm.colSpan=4;h.appendChild(fm);t.appendChild(h);
  var hd=document.createElement('tr');['to','upstream','local derivative','upstream \u00d7 local','collected at the input'].forEach(function(x){hd.appendChild(text('td',x,'tv-head'));});t.appendChild(hd);
  c.rows.forEach(function(r,k){var tr=document.createElement('tr');tr.appendChild(text('td',r[0]));tr.appendChild(text('td',c.up));
    var p=hidden[k+':product'], s=hidden[k+':sum'], lq=hidden[k+':local'];
    tr.appendChild(text('td',lq?unknown(lq):(r[1]||c.f)));var pc=text('td',p?unknown(p):r[3],'tv-product');tr.appendChild(pc);
    if(!p&&r[6]&&r[6].p)traceCell(pc,r[6],f.index+':'+k);
    tr.appendChild(text('td',s?unknown(s):(p?'?':r[4])));t.appendChild(tr);});
  cardBox.appendChild(t);}
// An array step (tapeviz/viz/card_parts.py traced): its products as a strip of cells; the student clicks a
// cell to trace that element through (upstream[i] x local[i] = product[i]); the choice is kept per card row.
var picked={};
function traceCell(td,e,key){var at=picked[key]!==undefined?picked[key]:e.flat, n=e.p.length;
  var idx=[],rest=at;for(var d=e.shape.length-1;d>=0;d--){idx.unshift(rest%e.shape[d]);rest=Math.floor(rest/e.shape[d]);}
  function shown(v){return v===null?'nan':num(v);}
  var words='at ['+idx.join(', ')+']: '+shown(e.u[at])+' \u00d7 '+shown(e.l[at])+' = '+shown(e.p[at])+' (each of the '+n+' elements alike)';
  if(e.sum)words+='; '+td.textContent.split('; ').slice(1).join('; ');
  td.textContent=words;
  var big=0;e.p.forEach(function(v){if(v!==null&&Math.abs(v)>big)big=Math.abs(v);});big=big||1;
  var cell=Math.max(1,160/n), s=el('svg',{'class':'tv-strip',width:Math.ceil(cell*n)+2,height:16,viewBox:'-1 -1 '+(cell*n+2)+' 16'});
  e.p.forEach(function(v,i){var t=v===null?null:Math.max(-1,Math.min(1,v/big));
    var fill=t===null?'#fde047':(t>=0?'rgb('+Math.round(255-35*t)+','+Math.round(255-217*t)+','+Math.round(255-217*t)+')':'rgb('+Math.round(255+218*t)+','+Math.round(255+156*t)+','+Math.round(255+20*t)+')');
    var r=el('rect',{x:i*cell,width:cell,height:14,fill:fill});r.style.cursor='pointer';
    r.appendChild(el('title',{})).textContent='element '+i+': '+shown(v)+' (click to trace it)';
    r.onclick=function(){picked[key]=i;draw();};s.appendChild(r);});
  s.appendChild(el('rect',{x:at*cell,width:cell,height:14,fill:'none',stroke:'#111827','stroke-width':1.5}));
  td.appendChild(document.createElement('br'));td.appendChild(s);
  td.appendChild(text('div','upstream \u00d7 local, element by element (blue < 0 < red): click a cell to trace it','tv-strip-note'));}
// the optimizer's update (tapeviz/viz/update_card.py): quantity, rule with the numbers, value
function drawUpdateCard(c,t){var h=document.createElement('tr');var th=text('th',c.t);th.colSpan=3;h.appendChild(th);t.appendChild(h);
  var hd=document.createElement('tr');['quantity','rule, with the numbers','value'].forEach(function(x){hd.appendChild(text('td',x,'tv-head'));});t.appendChild(hd);
  c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td',r[0]));tr.appendChild(text('td',r[1]));
    tr.appendChild(text('td',r[2],'tv-product'));t.appendChild(tr);});}
function drawTangentCard(c,t,hide){
  if(c.seed){c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td','tangent'));
    tr.appendChild(text('td',r[0]+' = '+r[1]));t.appendChild(tr);});return;}
  var h=document.createElement('tr');h.appendChild(text('th',c.op+' \u2192 '+c.out));var fm=text('th',c.f,'tv-formula');fm.colSpan=3;h.appendChild(fm);t.appendChild(h);
  var hd=document.createElement('tr');['from','tangent in','local derivative','local \u00d7 tangent'].forEach(function(x){hd.appendChild(text('td',x,'tv-head'));});t.appendChild(hd);
  c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td',r[0]));tr.appendChild(text('td',r[1]));
    tr.appendChild(text('td',r[2]));tr.appendChild(text('td',hide?'?':r[3],'tv-product'));t.appendChild(tr);});
  var last=document.createElement('tr');var tot=text('td',hide?unknown(hide):c.tot,'tv-product');tot.colSpan=4;last.appendChild(tot);t.appendChild(last);}
function draw(){var f=frames[current]; var hide=hiding(current);
  while(layer.firstChild)layer.removeChild(layer.firstChild);
  (f.hidden||[]).forEach(function(id){var b=boxes[id];if(!b)return;
    layer.appendChild(el('rect',{x:b[0]-2,y:b[1]-2,width:b[2]-b[0]+4,height:b[3]-b[1]+4,fill:'white','fill-opacity':0.9}));});
  if(!hide)(f.flow||[]).forEach(function(id){var p=paths[id];if(!p)return;
    var path=el('path',{d:'M'+p.map(function(q){return q[0]+','+q[1];}).join(' L'),fill:'none',stroke:style.flow,'stroke-width':3,'class':'tv-flow'});path.setAttribute(style.forward?'marker-end':'marker-start','url(#'+mark+')');layer.appendChild(path);});
  Object.keys(edges).sort().forEach(function(id){var p=paths[id];if(!p||spots[id]===null||(hide&&(f.edges||{})[id]))return;var m=p[Math.floor(p.length/2)];  // null: no clear place, no label
    var q=spots[id]||[m[0]+3,m[1]-7];  // the label's corner, placed once in Python off nodes and badges
    var w=6*edges[id].length+6; var g=el('g',{'class':'tv-edge-grad'});
    g.appendChild(el('rect',{x:q[0],y:q[1],width:w,height:13,rx:3,fill:'white','fill-opacity':0.85}));
    var t=el('text',{x:q[0]+3,y:q[1]+10,'font-size':10,'font-family':'Helvetica,Arial,sans-serif',fill:style.flow});t.textContent=edges[id];g.appendChild(t);layer.appendChild(g);});
  var lit=null; if(f.node&&boxes[f.node]){var b=boxes[f.node];
    lit=el('rect',{x:b[0]-4,y:b[1]-4,width:b[2]-b[0]+8,height:b[3]-b[1]+8,rx:6,fill:'none',stroke:'#f59e0b','stroke-width':4});layer.appendChild(lit);}
  Object.keys(badges).sort().forEach(function(id){var b=boxes[id];if(!b||(f.hidden||[]).indexOf(id)>=0)return;
    if(hide&&(f.set||{})[id])return;
    var lines=badges[id].split('\n');  // a long badge: what it is, then its value (svg_frames.badge_lines)
    var w=6.2*Math.max.apply(null,lines.map(function(l){return l.length;}))+8;
    var p=spots[id]||[b[2]+3,b[3]-16];
    layer.appendChild(el('rect',{x:p[0],y:p[1],width:w,height:16+13*(lines.length-1),rx:4,fill:style.badge,stroke:style.badge_edge}));
    lines.forEach(function(line,row){var t=el('text',{x:p[0]+4,y:p[1]+12+13*row,'font-size':11,'font-family':'Helvetica,Arial,sans-serif',fill:style.badge_text});
      t.textContent=line; layer.appendChild(t);});});
  caption.textContent='step '+current+' of '+(frames.length-1)+': '+(hide?f.caption.split(';')[0]+'; '+said.asking:f.caption);
  drawCard(f,predict.checked?pending(current):{}); drawAsk();
  sizeView(); if(lit)follow(lit); fitFrame();}
function show(i){i=Math.max(0,Math.min(frames.length-1,i));
  if(i===current+1&&current>=0)apply(frames[i]);else if(i!==current)replay(i);
  current=i; slider.value=current; draw();}
// keep the highlighted node in view: where the browser drew it, within the scrolled view (whatever the zoom)
function follow(lit){var r=lit.getBoundingClientRect(), v=view.getBoundingClientRect();
  var x=(r.left+r.right)/2-v.left+view.scrollLeft, y=(r.top+r.bottom)/2-v.top+view.scrollTop;
  if(x<view.scrollLeft+40||x>view.scrollLeft+view.clientWidth-40)view.scrollLeft=x-view.clientWidth/2;
  if(y<view.scrollTop+40||y>view.scrollTop+view.clientHeight-40)view.scrollTop=y-view.clientHeight/2;}
function setZoom(z){zoom=Math.max(0.1,Math.min(8,z));svg.setAttribute('width',(W0*zoom)+'px');svg.setAttribute('height',(H0*zoom)+'px');
  root.querySelector('.tv-zoom-level').textContent=Math.round(zoom*100)+'%';if(current>=0)draw();}
function fit(){var z=Math.min(view.clientWidth/W0,1);setZoom(z>0?z:1);}
function stop(){if(timer){clearInterval(timer);timer=null;}playBtn.textContent='\u25B6 play';}
function play(){if(timer){stop();return;} if(current>=frames.length-1)show(0);
  playBtn.textContent='\u23F8 pause';
  timer=setInterval(function(){if(current>=frames.length-1||hiding(current)){stop();return;}show(current+1);},parseInt(speed.value));}
// One line per question asked so far on this step: the answered ones keep their verdicts.
function drawAsk(){askBox.innerHTML='';scoreBox.textContent=predict.checked?scoreText():'';if(!predict.checked)return;
  var now=currentQ(current);
  asks(current).forEach(function(q,p){if(now>=0&&p>now)return;var g=record(current,p);
    var line=text('div','','tv-question');line.appendChild(text('span',(p+1)+'. '+q.label+' = '));
    var box=document.createElement('input');box.className='tv-guess-input';box.size=10;
    box.value=(p===now&&g.status==='retry')?'':g.typed;line.appendChild(box);
    if(p===now){var b=text('button','check','tv-check');b.onclick=function(){check(box.value);};
      box.onkeydown=function(e){if(e.key==='Enter')check(box.value);};line.appendChild(b);}else box.disabled=true;
    line.appendChild(text('span',' '+g.message,'tv-verdict'+(g.status?' '+(g.status==='right'?'tv-right':g.status==='unreadable'?'tv-note':'tv-wrong'):'')));
    askBox.appendChild(line);});}
function check(typed){var p=currentQ(current);if(p<0)return;var g=record(current,p);
  var r=judge(asks(current)[p],String(typed),g.wrong);if(r[0]==='retry'||r[0]==='revealed')g.wrong++;
  g.status=r[0];g.typed=String(typed);g.message=r[1];given[current+':'+p]=g;draw();
  var next=askBox.querySelector('input:not([disabled])');if(next)next.focus();}
root.querySelector('.tv-first').onclick=function(){stop();show(0);};
root.querySelector('.tv-back').onclick=function(){stop();show(current-1);};
root.querySelector('.tv-next').onclick=function(){stop();if(!hiding(current))show(current+1);};  // predict: answer first, as in the widget
root.querySelector('.tv-last').onclick=function(){stop();show(frames.length-1);};
// first NaN, first underflow, largest gradient: the step each goes to is in its data-step (tapeviz/viz/frames.py jump_targets)
root.querySelectorAll('.tv-jump[data-step]').forEach(function(b){b.onclick=function(){stop();var to=parseInt(b.getAttribute('data-step'));
  if(to>current&&hiding(current))return;  // predict: answer first, as stepping forward does
  show(to);};});
root.querySelector('.tv-zoom-in').onclick=function(){setZoom(zoom*1.25);};
root.querySelector('.tv-zoom-out').onclick=function(){setZoom(zoom/1.25);};
root.querySelector('.tv-zoom-fit').onclick=fit;
predict.onchange=function(){given={};draw();};
var drag=null; view.onmousedown=function(e){drag=[e.clientX,e.clientY,view.scrollLeft,view.scrollTop];view.style.cursor='grabbing';};
window.addEventListener('mouseup',function(){drag=null;view.style.cursor='grab';});
view.onmousemove=function(e){if(!drag)return;view.scrollLeft=drag[2]-(e.clientX-drag[0]);view.scrollTop=drag[3]-(e.clientY-drag[1]);};
view.addEventListener('wheel',function(e){if(!e.ctrlKey)return;e.preventDefault();setZoom(zoom*(e.deltaY<0?1.1:1/1.1));},{passive:false});
playBtn.onclick=play; slider.oninput=function(){stop();show(parseInt(slider.value));};
speed.onchange=function(){if(timer){stop();play();}};
// Embedded in an <iframe srcdoc> (a notebook's output, a docs page): the frame takes the player's height, with
// no blank below it; it only grows after that, so the page does not jump as the steps' cards change size.
var host=null; try{host=window.frameElement;}catch(e){}
// The picture's height: what the screen leaves under the controls (and, stacked, under the card), so the
// card and the highlighted node (scrolled to by follow) are on one screen; a stable height once set, so the
// page does not jump from step to step (it only shrinks when a taller card comes).
var screenH=600; try{screenH=host?window.parent.innerHeight:window.innerHeight;}catch(e){}
var bar=root.querySelector('.tv-bar'), side=root.querySelector('.tv-side'), viewH=null;
function sizeView(){var beside=side.getBoundingClientRect().top===view.getBoundingClientRect().top||getComputedStyle(root.querySelector('.tv-main')).flexDirection==='row';
  var h=Math.max(240,Math.round(screenH-bar.offsetHeight-(beside?0:side.offsetHeight)-24));
  if(viewH===null||h<viewH){viewH=h;view.style.maxHeight=h+'px';}}
var fitted=false;
function fitFrame(){if(!host)return; var h=Math.ceil(root.getBoundingClientRect().bottom+(window.scrollY||0))+8;
  if(!fitted||h>host.clientHeight){host.style.height=h+'px';fitted=true;}}
fit(); show(0);  // the whole picture at first, scaled down to the page's width when wider
})();

// On a phone a wide table stacks: each row becomes a card, each cell led by its column's name
// (tapeviz.css shows the name from data-label below 640 px), so the TF map's notes column is read,
// not scrolled out of sight. Above that width the tables are untouched.
document.addEventListener("DOMContentLoaded", () => {
  for (const table of document.querySelectorAll("article table.docutils")) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    if (heads.length < 3) continue;  // two columns fit a phone as they are
    table.classList.add("tv-stackable");
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, index) => {
        cell.setAttribute("data-label", heads[index] || "");
        if (!cell.textContent.trim()) cell.classList.add("tv-empty");  // no bare "notes:" on a phone
      });
    }
  }
});

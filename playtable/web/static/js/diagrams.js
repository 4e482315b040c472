// The diagrams of the rules and variant pages: positions computed by the server (the same
// view as a live table's) drawn by the live boards' own code, in their still mode.

import { DotsBoard } from "./dots.js";
import { SwaptimumBoard } from "./swaptimum.js";

for (const figure of document.querySelectorAll("figure[data-diagram]")) {
  const data = JSON.parse(figure.querySelector(".diagram__data").textContent);
  const root = figure.querySelector(".diagram__board");
  const board =
    data.kind === "dots" ? new DotsBoard(root, { still: true }) : new SwaptimumBoard(root, { still: true });
  board.render(data.table, { interactive: false });
  root.dataset.drawn = "true";
}

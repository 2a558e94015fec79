// The site's diagrams, drawn by the vendored Mermaid only where a reader will see them.
//
// Mermaid is 3.5 MB of JavaScript; loaded on every page, render-blocking, it made every page
// slow on a phone. The build adds this small script (deferred) only to pages that hold a
// diagram, and the diagram's source waits in a <div class="kb-diagram">, readable as text
// without JavaScript. When a diagram comes within a screen of the viewport, Mermaid is
// loaded once from the site's own copy (data-mermaid on this script: never a CDN) and draws
// every diagram of the page that is near; the others follow as they come near.
(function () {
  "use strict";

  var script = document.currentScript;
  var mermaidUrl = script && script.getAttribute("data-mermaid");
  // Colours from the theme's own variables, so that a diagram follows the light and the
  // dark scheme, and a switch between them, without being drawn again.
  var THEME_CSS = [
    ".node rect, .node polygon, .statediagram-state rect, .statediagram-state .divider",
    "{ fill: var(--md-mermaid-node-bg-color) !important; stroke: var(--md-mermaid-node-fg-color) !important; }",
    ".nodeLabel, .nodeLabel p, .label, .label text, .edgeLabel { color: var(--md-mermaid-label-fg-color) !important;",
    " fill: var(--md-mermaid-label-fg-color) !important; font-family: var(--md-mermaid-font-family); }",
    // Mermaid paints an edge label's own <p> with a light fill of its theme; in the dark
    // scheme the label's light text then sits on it. The label sits on the page instead.
    ".edgeLabel, .edgeLabel rect, .edgeLabel p, .edgeLabel span, .labelBkg",
    "{ background-color: transparent !important; fill: transparent !important; }",
    ".transition, .edgePath .path, .flowchart-link { stroke: var(--md-mermaid-edge-color) !important; }",
    "marker path, .marker, .arrowheadPath { fill: var(--md-mermaid-edge-color) !important; stroke: var(--md-mermaid-edge-color) !important; }",
    ".state-start, .state-end, .end-state-outer, .end-state-inner { fill: var(--md-mermaid-edge-color) !important;",
    " stroke: var(--md-mermaid-edge-color) !important; }",
    ".end-state-inner { fill: var(--md-default-bg-color) !important; }",
  ].join("\n");
  var loading = null;
  var drawn = 0;

  function loadMermaid() {
    if (loading === null) {
      loading = new Promise(function (resolve, reject) {
        if (!mermaidUrl) {
          reject(new Error("the page does not say where Mermaid is"));
          return;
        }
        var tag = document.createElement("script");
        tag.src = mermaidUrl;
        tag.onload = resolve;
        tag.onerror = function () { reject(new Error("Mermaid could not be loaded from " + mermaidUrl)); };
        document.head.appendChild(tag);
      }).then(function () {
        // securityLevel "strict": labels are sanitised and no click handler or link is kept
        // (a diagram's ids come from the build, but this holds whatever they are).
        window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "base", themeCSS: THEME_CSS });
      });
    }
    return loading;
  }

  // The smallest text a diagram may show, in CSS pixels as drawn. Mermaid scales a diagram
  // down to the width of its column, and a left-to-right state diagram of 800 units at a
  // phone's 358 px drew its labels at 7 px. Such a diagram is drawn again top to bottom,
  // which fits a phone at full size; one still too wide scrolls sideways at a readable size.
  var MIN_TEXT_PX = 12;
  var LEFT_TO_RIGHT = /^(\s*)direction LR\s*$/m;  // the first: the diagram's own direction

  function textPx(figure) {
    var svg = figure.querySelector("svg");
    var box = svg && svg.viewBox && svg.viewBox.baseVal;
    if (!box || !box.width) return Infinity;
    var scale = svg.getBoundingClientRect().width / box.width;
    var smallest = Infinity;
    figure.querySelectorAll(".nodeLabel, .edgeLabel, text").forEach(function (label) {
      var size = parseFloat(getComputedStyle(label).fontSize);
      if (size && label.textContent.trim()) smallest = Math.min(smallest, size);
    });
    return smallest * scale;
  }

  function render(source) {
    drawn += 1;
    return window.mermaid.render("kb-diagram-" + drawn, source).then(function (result) {
      var figure = document.createElement("div");
      figure.className = "mermaid kb-diagram-drawn";
      figure.innerHTML = result.svg; // Mermaid's own SVG, from a build-made source
      return figure;
    });
  }

  function draw(pre) {
    if (pre.getAttribute("data-state")) return;
    pre.setAttribute("data-state", "drawing");
    var source = pre.textContent;
    var label = pre.getAttribute("aria-label") || "State diagram";
    var shown = pre;
    function show(figure) {
      figure.setAttribute("role", "img");
      figure.setAttribute("aria-label", label);
      shown.replaceWith(figure);
      shown = figure;
      return figure;
    }
    loadMermaid()
      .then(function () { return render(source); })
      .then(function (figure) {
        show(figure);
        if (textPx(figure) >= MIN_TEXT_PX || !LEFT_TO_RIGHT.test(source)) return figure;
        return render(source.replace(LEFT_TO_RIGHT, "$1direction TB")).then(show);
      })
      .then(function (figure) {
        var px = textPx(figure);
        if (px >= MIN_TEXT_PX) return;
        // Still too small: drawn at a readable size, in a region that scrolls sideways.
        var svg = figure.querySelector("svg");
        svg.style.minWidth = Math.ceil(svg.getBoundingClientRect().width * MIN_TEXT_PX / px) + "px";
        var region = document.createElement("div");
        region.className = "kb-diagram-scroll";
        region.setAttribute("role", "region");
        region.setAttribute("tabindex", "0");
        region.setAttribute("aria-label", label + " (scrolls sideways)");
        figure.replaceWith(region);
        region.appendChild(figure);
      })
      .catch(function (error) {
        pre.setAttribute("data-state", "failed");
        pre.setAttribute("title", "The diagram could not be drawn: " + (error && error.message));
      });
  }

  function start() {
    var diagrams = Array.prototype.slice.call(document.querySelectorAll("div.kb-diagram"));
    if (diagrams.length === 0) return;
    if (!("IntersectionObserver" in window)) {
      diagrams.forEach(draw);
      return;
    }
    var watcher = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) {
          watcher.unobserve(entry.target);
          draw(entry.target);
        }
      });
    }, { rootMargin: "100% 0px" });
    diagrams.forEach(function (pre) { watcher.observe(pre); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

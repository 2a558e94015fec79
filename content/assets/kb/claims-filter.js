// Filters on the claims page: subject, version, verdict, authority and free text.
// The claims are rendered in the page (each entry has its permanent anchor), in a
// collapsed <details> group per claims file; this script hides the claims the filters
// exclude and opens the groups that keep one. Each claim's facets come from the JSON blob
// the build embeds (claims.py, packed_index): per id, its subject, verdict and authority as
// the position of their option in the filter's <select> (0 for none), and its versions as a
// bit mask over the version options. A link to claims/#<id> opens the claim's group.
// Without JavaScript the page still works: the groups open by hand.
(function () {
  "use strict";

  function setUp() {
    var form = document.getElementById("kb-claim-filters");
    var blob = document.getElementById("kb-claims-index");
    if (!form || !blob || form.dataset.ready === "1") return;
    form.dataset.ready = "1";
    var index = JSON.parse(blob.textContent);
    var entries = Array.prototype.slice.call(document.querySelectorAll("#kb-claims li[id]"));
    var groups = Array.prototype.slice.call(document.querySelectorAll("#kb-claims details.kb-topic"));
    var count = document.getElementById("kb-claim-count");
    var filtering = false;

    // The claim a link names is shown: its group opened and the claim scrolled to.
    function reveal() {
      var id = decodeURIComponent(location.hash.slice(1));
      var target = id && document.getElementById(id);
      if (!target) return;
      var group = target.closest ? target.closest("details.kb-topic") : null;
      if (group && !group.open) {
        group.open = true;
        target.scrollIntoView();
      }
    }

    function apply() {
      // Option 0 of each <select> is "any"; option i is the facet at position i.
      var subject = form.elements.subject.selectedIndex;
      var version = form.elements.version.selectedIndex;
      var verdict = form.elements.verdict.selectedIndex;
      var authority = form.elements.authority.selectedIndex;
      var text = form.elements.text.value.trim().toLowerCase();
      var shown = 0;
      var active = !!(subject || version || verdict || authority || text);
      if (!active && !filtering) return;  // nothing to undo: leave the page as it loaded
      entries.forEach(function (entry) {
        var facets = index[entry.id] || [0, 0, 0, 0];
        var keep =
          (!subject || facets[0] === subject) &&
          (!version || (facets[3] & (1 << (version - 1))) !== 0) &&
          (!verdict || facets[1] === verdict) &&
          (!authority || facets[2] === authority) &&
          (!text || entry.textContent.toLowerCase().indexOf(text) !== -1);
        entry.hidden = !keep;
        if (keep) shown += 1;
      });
      groups.forEach(function (group) {
        // While a filter is on, a group is open when it keeps a claim; when the filters are
        // cleared, the groups close again.
        group.open = active && group.querySelector("li[id]:not([hidden])") !== null;
      });
      filtering = active;
      count.textContent = shown + " of " + entries.length + " claims";
      reveal();
    }

    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    window.addEventListener("hashchange", reveal);
    apply();
    reveal();
  }

  // mkdocs-material swaps pages without reloading when instant loading is on; its
  // document$ observable announces each page. Without it, the DOM event is enough.
  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(setUp);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();

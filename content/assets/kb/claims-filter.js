// Filters on the claims page: subject, version, verdict, authority and free text.
// The claims are rendered in the page (each <article> has its permanent anchor), in a
// collapsed <details> group per claims file; this script hides the claims the filters
// exclude (reading each claim's facets from the JSON blob the build embeds) and opens the
// groups that keep one. A link to claims/#<id> opens the claim's group. Without JavaScript
// the page still works: the groups open by hand.
(function () {
  "use strict";

  function setUp() {
    var form = document.getElementById("kb-claim-filters");
    var blob = document.getElementById("kb-claims-index");
    if (!form || !blob || form.dataset.ready === "1") return;
    form.dataset.ready = "1";
    var index = JSON.parse(blob.textContent);
    var articles = Array.prototype.slice.call(document.querySelectorAll("#kb-claims article[data-claim]"));
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
      var subject = form.elements.subject.value;
      var version = form.elements.version.value;
      var verdict = form.elements.verdict.value;
      var authority = form.elements.authority.value;
      var text = form.elements.text.value.trim().toLowerCase();
      var shown = 0;
      var active = !!(subject || version || verdict || authority || text);
      if (!active && !filtering) return;  // nothing to undo: leave the page as it loaded
      articles.forEach(function (article) {
        var facets = index[article.dataset.claim] || {};
        var keep =
          (!subject || facets.subject === subject) &&
          (!version || (facets.versions || []).indexOf(version) !== -1) &&
          (!verdict || facets.verdict === verdict) &&
          (!authority || facets.authority === authority) &&
          (!text || article.textContent.toLowerCase().indexOf(text) !== -1);
        article.hidden = !keep;
        if (keep) shown += 1;
      });
      groups.forEach(function (group) {
        // While a filter is on, a group is open when it keeps a claim; when the filters are
        // cleared, the groups close again.
        group.open = active && group.querySelector("article:not([hidden])") !== null;
      });
      filtering = active;
      count.textContent = shown + " of " + articles.length + " claims";
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

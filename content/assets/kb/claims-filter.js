// Filters on the claims page: subject, version, verdict, authority and free text.
// The claims are rendered in the page (each <article> has its permanent anchor); this script
// only hides the ones the filters exclude, reading each claim's facets from the JSON blob
// the build embeds, so the page works (unfiltered) without JavaScript.
(function () {
  "use strict";

  function setUp() {
    var form = document.getElementById("kb-claim-filters");
    var blob = document.getElementById("kb-claims-index");
    if (!form || !blob || form.dataset.ready === "1") return;
    form.dataset.ready = "1";
    var index = JSON.parse(blob.textContent);
    var articles = Array.prototype.slice.call(document.querySelectorAll("#kb-claims article[data-claim]"));
    var count = document.getElementById("kb-claim-count");

    function apply() {
      var subject = form.elements.subject.value;
      var version = form.elements.version.value;
      var verdict = form.elements.verdict.value;
      var authority = form.elements.authority.value;
      var text = form.elements.text.value.trim().toLowerCase();
      var shown = 0;
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
      count.textContent = shown + " of " + articles.length + " claims";
    }

    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    apply();
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

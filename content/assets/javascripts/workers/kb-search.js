// The site's search worker: the theme's own worker (named in this script's query string,
// "?theme=search.<hash>.min.js", and beside it in this folder), set up with the full search
// index when a reader first searches for something.
//
// Left to itself, the theme fetches search/search_index.json on the page's main thread,
// parses it there, copies it into its worker and has lunr index it, on every page, at load,
// whether or not anyone searches: about a megabyte of text and a second of a phone's CPU.
// The build leaves the theme an index without documents at that address and the documents
// in search/search_index.full.json (KnowledgeBasePlugin.on_post_build). This worker says
// "ready" at once, answers the empty query the theme sends at load with no results, as the
// theme's worker does, and fetches the documents and sets the theme's worker up on the first
// query with text in it; that query, and any sent meanwhile, wait for it.
//
// If the documents cannot be fetched, the theme's worker is set up without them and finds
// nothing; the reason is logged.
"use strict";
(function () {
  // The theme's SearchMessageType.
  var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
  var DOCUMENTS = new URL("../../../search/search_index.full.json", self.location.href);
  var theme = new URLSearchParams(self.location.search).get("theme") || "";
  if (!/^search\.[0-9a-f]+\.min\.js$/.test(theme)) {
    throw new Error("kb-search.js: expected ?theme=search.<hash>.min.js, got " + JSON.stringify(theme));
  }

  // The theme's worker registers one "message" listener, which answers with postMessage:
  // keep it, to hand it messages in order.
  var listeners = [];
  var addEventListener = self.addEventListener.bind(self);
  self.addEventListener = function (type, listener, options) {
    if (type === "message") listeners.push(listener);
    else addEventListener(type, listener, options);
  };
  importScripts(theme);
  self.addEventListener = addEventListener;

  function deliver(message) {
    return Promise.all(listeners.map(function (listener) { return listener({ data: message }); }));
  }

  function withDocuments(setup) {
    return fetch(DOCUMENTS).then(function (response) {
      if (!response.ok) throw new Error(DOCUMENTS + ": HTTP " + response.status);
      return response.json();
    }).then(function (index) {
      setup.data.docs = index.docs;
      return setup;
    }, function (error) {
      console.warn("search: the index could not be loaded:", error);
      return setup;
    });
  }

  var setup = null;      // the theme's setup message, until it is delivered
  var settingUp = null;  // the promise of its delivery, once a query asked for it
  var done = Promise.resolve();

  function handle(message) {
    if (message && message.type === SETUP && message.data && message.data.docs.length === 0) {
      setup = message;
      postMessage({ type: READY });
      return Promise.resolve();
    }
    var blank = message && message.type === QUERY && !String(message.data).trim();
    if (blank && settingUp === null) {
      postMessage({ type: RESULT, data: { items: [] } });
      return Promise.resolve();
    }
    if (setup !== null && settingUp === null) {
      settingUp = withDocuments(setup).then(deliver);  // its "ready" goes unheeded: the first counts
    }
    return (settingUp || Promise.resolve()).then(function () { return deliver(message); });
  }

  addEventListener("message", function (event) {
    done = done.then(function () { return handle(event.data); }).catch(function (error) {
      console.warn("search:", error);
    });
  });
})();

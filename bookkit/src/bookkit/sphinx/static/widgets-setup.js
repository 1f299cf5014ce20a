// Loaded just before the ipywidgets HTML manager (book/_vendor/html-manager/embed-amd.js) on
// pages with widgets; see book/_ext/dpolearn_book.py.
(function () {
  "use strict";
  // 1. The manager loads its icon fonts relative to where require.js thinks its module lives
  //    (by default next to the page) and to __jupyter_widgets_assets_path__: point both at
  //    the vendored copy beside this file.
  var here = document.currentScript && document.currentScript.src;
  if (here) {
    window.__jupyter_widgets_assets_path__ = new URL("html-manager/", here).href;
    if (window.require && window.require.config) {
      window.require.config({paths: {
        "@jupyter-widgets/html-manager/dist": new URL("html-manager", here).href}});
    }
  }

  // 2. The manager typesets widget labels with the MathJax 2 call
  //    MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]); the book loads MathJax 3, which has
  //    no Hub. Give every loaded MathJax object a Hub whose Queue runs MathJax 3's typesetPromise.
  var hub = {
    Queue: function (job) {
      var mj = window.MathJax;
      var element = job && job[2];
      if (!mj || !mj.typesetPromise) { return; }
      var ready = (mj.startup && mj.startup.promise) || Promise.resolve();
      ready.then(function () { return mj.typesetPromise(element ? [element] : undefined); });
    }
  };
  function bridge(mj) {
    if (mj && typeof mj === "object" && mj.version && !mj.Hub) {
      try { mj.Hub = hub; } catch (e) { /* frozen object: leave it */ }
    }
    return mj;
  }
  var current = bridge(window.MathJax);
  try {
    Object.defineProperty(window, "MathJax", {
      configurable: true,
      enumerable: true,
      get: function () { return current; },
      set: function (value) { current = bridge(value); }
    });
  } catch (e) { /* window.MathJax not configurable: the manager may log a typeset error */ }
})();

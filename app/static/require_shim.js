// ALBERT Lab's stand-in for require.js, written for bertviz's two calls:
//   require.config({paths: {d3: <CDN>, jquery: <CDN>}})  and  requirejs(['jquery', 'd3'], callback).
// The iframe has already loaded local copies of d3 and jQuery as globals (no CDN, no network),
// so `config` is ignored and `requirejs` hands those globals to the callback.
(function () {
  "use strict";
  var modules = {
    d3: function () { return window.d3; },
    jquery: function () { return window.jQuery; }
  };
  function requirejs(names, callback) {
    var found = names.map(function (name) { return modules[name] ? modules[name]() : undefined; });
    if (found.some(function (module) { return module === undefined; })) {
      document.body.setAttribute("data-bertviz-error", "missing " + names.join(", "));
      return;
    }
    if (typeof callback === "function") { callback.apply(window, found); }
  }
  requirejs.config = function () {};
  window.requirejs = requirejs;
  window.require = requirejs;
})();

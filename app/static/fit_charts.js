() => {
  // Plotly draws a chart at its default 700 px when its box has no width at that moment (a result drawn again on a
  // tab that is not shown, as the language switch does) and fits it again only on a window resize: on a 390 px phone
  // every chart of the other tabs came back cut at the right. When a shown chart's box and its drawing differ, one
  // resize event makes every chart fit its box again (each chart's own `responsive` handler).
  let pending = false;
  const fit = () => {
    pending = false;
    for (const plot of document.querySelectorAll(".js-plotly-plot")) {
      const drawn = plot._fullLayout && plot._fullLayout.width;
      if (plot.clientWidth > 0 && drawn && Math.abs(plot.clientWidth - drawn) > 2) {
        window.dispatchEvent(new Event("resize"));
        return;
      }
    }
  };
  const soon = () => {
    if (!pending) {
      pending = true;
      setTimeout(fit, 150);
    }
  };
  new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
  document.addEventListener("click", soon, true);
  window.labFitCharts = fit;
}

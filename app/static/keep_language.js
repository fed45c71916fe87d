() => {
  // The page started in English on every reload: a 中文 class lost its language each time (issue 42). The choice is
  // kept two ways: ?lang=zh (or en) in the address, a link a teacher can hand out, and, without one, the last choice
  // made in this browser (localStorage). Picking a language writes both.
  window.labKeepLanguage = true;  // the page runs this script (tests/app/test_app_language_kept.py asks)
  const KEY = "albert-lab-lang";
  const languageOf = (label) => (label.textContent.includes("中文") ? "zh" : "en");
  const remember = () => {
    const checked = document.querySelector("#language input:checked");
    const label = checked && checked.closest("label");
    if (!label) return;
    const lang = languageOf(label);
    try {
      localStorage.setItem(KEY, lang);
    } catch (error) {
      // storage refused (a private window): the address still says it
    }
    const url = new URL(location.href);
    url.searchParams.set("lang", lang);
    history.replaceState(history.state, "", url);
  };
  document.addEventListener("change", (event) => {
    if (event.target instanceof Element && event.target.closest("#language")) remember();
  });
  let wanted = new URLSearchParams(location.search).get("lang");
  if (wanted !== "zh" && wanted !== "en") {
    try {
      wanted = localStorage.getItem(KEY);
    } catch (error) {
      wanted = null;
    }
  }
  if (wanted !== "zh" && wanted !== "en") return;
  const pick = (tries) => {
    const labels = [...document.querySelectorAll("#language label")];
    const label = labels.find((l) => languageOf(l) === wanted);
    if (!label) {
      if (tries > 0) setTimeout(() => pick(tries - 1), 200);
      return;
    }
    const input = label.querySelector("input");
    if (input && !input.checked) label.click();
  };
  pick(100);
}

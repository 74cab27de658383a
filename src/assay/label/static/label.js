// Keyboard shortcuts for the labeling form (the form also works without this script).
(function () {
  "use strict";
  var form = document.getElementById("label-form");
  if (!form) { return; }
  var sets = Array.prototype.slice.call(form.querySelectorAll("fieldset.criterion"));
  var comment = document.getElementById("comment");
  var current = 0;

  function focusSet(i) {
    if (!sets.length) { return; }
    current = Math.max(0, Math.min(sets.length - 1, i));
    sets.forEach(function (s, k) { s.classList.toggle("current", k === current); });
  }
  function choose(value) {
    var set = sets[current];
    if (!set) { return false; }
    var input = set.querySelector('input[value="' + value + '"]');
    if (!input) { return false; }
    input.checked = true;
    set.classList.add("answered");
    if (current < sets.length - 1) { focusSet(current + 1); }
    return true;
  }
  sets.forEach(function (set, k) {
    set.addEventListener("change", function () { set.classList.add("answered"); focusSet(k); });
  });
  focusSet(0);

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) {
      if (event.key === "Enter" && event.target === comment) { event.preventDefault(); form.requestSubmit(document.getElementById("submit")); }
      return;
    }
    if (event.target === comment) {
      if (event.key === "Escape") { comment.blur(); }
      return;
    }
    var key = event.key;
    var handled = true;
    if (key === "y" || key === "p") { handled = choose("1"); }
    else if (key === "n" || key === "f") { handled = choose("0"); }
    else if (/^[0-9]$/.test(key)) { handled = choose(key); }
    else if (key === "ArrowDown" || key === "j") { focusSet(current + 1); }
    else if (key === "ArrowUp" || key === "k") { focusSet(current - 1); }
    else if (key === "Enter") { form.requestSubmit(document.getElementById("submit")); }
    else if (key === "s") { form.requestSubmit(document.getElementById("skip")); }
    else if (key === "c") { comment.focus(); }
    else { handled = false; }
    if (handled) { event.preventDefault(); }
  });
  form.setAttribute("data-ready", "1");  // shortcuts active (tests wait for this)
  // One submission per page: a double press must not send the form twice.
  form.addEventListener("submit", function () {
    setTimeout(function () {
      Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) { b.disabled = true; });
    }, 0);
  });
})();

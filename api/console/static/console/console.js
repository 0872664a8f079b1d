/* Director console: keyboard shortcuts for the review queue and copy buttons. No network. */
(function () {
  "use strict";

  function typing(el) {
    if (!el) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  function control(el) {
    if (!el || el === document.body) return false;
    var tag = el.tagName;
    return tag === "BUTTON" || tag === "A" || tag === "SUMMARY" || el.getAttribute("role") === "button";
  }

  function setupCopy() {
    document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      button.addEventListener("click", function () {
        var source = document.getElementById(button.getAttribute("data-copy"));
        if (!source) return;
        var text = source.value !== undefined ? source.value : source.textContent;
        var done = function () {
          var old = button.textContent;
          button.textContent = "已复制";
          setTimeout(function () { button.textContent = old; }, 1200);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () {
            source.select(); document.execCommand("copy"); done();
          });
        } else {
          source.select(); document.execCommand("copy"); done();
        }
      });
    });
  }

  function setupQueue() {
    var queue = document.getElementById("queue");
    if (!queue) return;
    var items = Array.prototype.slice.call(queue.querySelectorAll(".item:not(.decided)"));
    if (!items.length) return;
    var current = 0;

    function select(index, scroll) {
      if (index < 0 || index >= items.length) return;
      items[current].classList.remove("current");
      current = index;
      items[current].classList.add("current");
      if (scroll) items[current].scrollIntoView({ block: "nearest" });
    }

    function press(key) {
      var form = items[current].querySelector("form.decide");
      if (!form) return;
      var button = key === "Enter"
        ? form.querySelector("button.suggested")
        : form.querySelector('button[data-key="' + key + '"]');
      if (!button) return;
      if (form.requestSubmit) form.requestSubmit(button); else button.click();
    }

    items.forEach(function (item, index) {
      item.addEventListener("click", function () { select(index, false); });
    });
    select(0, false);

    // Focus moves the selection: the item holding the focused control is the current one.
    queue.addEventListener("focusin", function (event) {
      var item = event.target.closest && event.target.closest(".item");
      var index = items.indexOf(item);
      if (index >= 0) select(index, false);
    });

    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var active = document.activeElement;
      if (typing(active)) {
        if (event.key === "Escape") active.blur();
        if (event.key === "Enter" && active.classList.contains("note-input")) {
          // Enter in the note rules the suggested colour of the note's own item.
          event.preventDefault();
          var item = active.closest(".item");
          if (item) select(items.indexOf(item), false);
          press("Enter");
        }
        return;
      }
      if (control(active)) {
        // A focused button or link does what it says: Enter and Space are the browser's,
        // and no shortcut may rule the current item from under it.
        return;
      }
      switch (event.key) {
        case "j": select(current + 1, true); break;
        case "k": select(current - 1, true); break;
        case "b": case "y": case "r": case "g": case "Enter": press(event.key); break;
        case "n":
          var note = items[current].querySelector(".note-input");
          if (note) { note.focus(); }
          break;
        default: return;
      }
      event.preventDefault();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setupCopy();
    setupQueue();
  });
})();

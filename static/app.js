// GreatBook Intake: small progressive enhancements. Every page works without them.
"use strict";

// csrfToken is the session's token, which htmx sends from <body hx-headers>.
function csrfToken() {
  try {
    return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
  } catch (e) {
    return "";
  }
}

// Upload: one request per file, each with its own progress bar and outcome.
function enhanceUpload(form) {
  const input = form.querySelector("input[type=file]");
  const list = document.getElementById("upload-results");
  form.addEventListener("submit", function (event) {
    if (!input.files || input.files.length === 0) return;
    event.preventDefault();
    Array.from(input.files).forEach(function (file) {
      const item = document.createElement("li");
      item.className = "upload-result uploading";
      item.setAttribute("data-testid", "upload-result");
      item.setAttribute("data-outcome", "uploading");
      const name = document.createElement("span");
      name.className = "filename";
      name.textContent = file.name;
      const bar = document.createElement("progress");
      bar.max = 100;
      bar.value = 0;
      bar.setAttribute("data-testid", "upload-progress");
      bar.setAttribute("aria-label", "Uploading " + file.name);
      item.append(name, bar);
      list.prepend(item);

      const data = new FormData();
      data.append("file", file, file.name);
      const xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.setRequestHeader("X-CSRF-Token", csrfToken());
      xhr.setRequestHeader("HX-Request", "true");
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100);
      });
      xhr.addEventListener("load", function () {
        const tpl = document.createElement("template");
        tpl.innerHTML = xhr.responseText.trim();
        const result = tpl.content.firstElementChild;
        if (result && result.matches("li")) {
          item.replaceWith(result);
          // The result keeps asking for its document's state until it is filed.
          if (window.htmx) window.htmx.process(result);
        } else {
          item.setAttribute("data-outcome", "refused");
          bar.remove();
          const msg = document.createElement("span");
          msg.className = "error";
          msg.setAttribute("role", "alert");
          msg.textContent = "refused: " + (tpl.content.textContent || xhr.statusText).trim();
          item.append(msg);
        }
      });
      xhr.addEventListener("error", function () {
        item.setAttribute("data-outcome", "refused");
        bar.remove();
        const msg = document.createElement("span");
        msg.className = "error";
        msg.setAttribute("role", "alert");
        msg.textContent = "the upload failed (network); try again";
        item.append(msg);
      });
      xhr.send(data);
    });
    form.reset();
  });
  enhanceDropZone(form, input);
}

// Drop zone: files dropped on the form are uploaded as if chosen with the
// input, which stays the keyboard's way to choose them.
function enhanceDropZone(form, input) {
  const zone = form.querySelector(".drop-zone");
  if (!zone) return;
  ["dragenter", "dragover"].forEach(function (type) {
    form.addEventListener(type, function (e) {
      if (!e.dataTransfer || Array.from(e.dataTransfer.types || []).indexOf("Files") < 0) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
      zone.classList.add("dragging");
    });
  });
  ["dragleave", "dragend"].forEach(function (type) {
    form.addEventListener(type, function (e) {
      if (!e.relatedTarget || !form.contains(e.relatedTarget)) zone.classList.remove("dragging");
    });
  });
  form.addEventListener("drop", function (e) {
    zone.classList.remove("dragging");
    if (!e.dataTransfer || !e.dataTransfer.files || e.dataTransfer.files.length === 0) return;
    e.preventDefault();
    input.files = e.dataTransfer.files;
    form.requestSubmit();
  });
}

// A page restored from the back-forward cache shows the state it was left
// in; every page here shows state (statuses, the desk's counts): ask again.
window.addEventListener("pageshow", function (e) {
  if (e.persisted) window.location.reload();
});

document.addEventListener("DOMContentLoaded", function () {
  const upload = document.getElementById("upload-form");
  if (upload) enhanceUpload(upload);
});

// Keyboard: j/k move through the queue, o or Enter opens, a approves, r
// goes to the reject reason, g d returns to the desk, ? shows the keys.
function typing(el) {
  return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

function queueRows() {
  return Array.from(document.querySelectorAll("[data-testid=queue-row]"));
}

function select(rows, i) {
  rows.forEach(function (r) { r.classList.remove("selected"); r.removeAttribute("aria-selected"); });
  const row = rows[i];
  if (!row) return;
  row.classList.add("selected");
  row.setAttribute("aria-selected", "true");
  row.focus();
  row.scrollIntoView({ block: "nearest" });
}

let pendingG = false;

document.addEventListener("keydown", function (e) {
  if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
  const help = document.getElementById("keys");
  const rows = queueRows();
  const current = rows.findIndex(function (r) { return r.classList.contains("selected"); });
  if (pendingG) {
    pendingG = false;
    if (e.key === "d") { window.location.href = "/desk"; e.preventDefault(); }
    return;
  }
  switch (e.key) {
    case "?":
      if (help) { help.open ? help.close() : help.showModal(); e.preventDefault(); }
      return;
    case "j":
      if (rows.length) { select(rows, Math.min(current + 1, rows.length - 1)); e.preventDefault(); }
      return;
    case "k":
      if (rows.length) { select(rows, Math.max(current - 1, 0)); e.preventDefault(); }
      return;
    case "o":
      if (current >= 0) { window.location.href = rows[current].dataset.href; e.preventDefault(); }
      return;
    case "Enter":
      // Only on the selected row itself: Enter on a link or button keeps its meaning.
      if (current >= 0 && e.target === rows[current]) { window.location.href = rows[current].dataset.href; e.preventDefault(); }
      return;
    case "a": {
      const approve = document.querySelector("[data-testid=approve]:not([disabled])");
      if (approve) { approve.click(); e.preventDefault(); }
      return;
    }
    case "r": {
      const reason = document.getElementById("reject-reason");
      if (reason) { reason.focus(); e.preventDefault(); }
      return;
    }
    case "g":
      pendingG = true;
      return;
  }
});

// A click anywhere on a queue row opens it.
document.addEventListener("click", function (e) {
  const row = e.target.closest && e.target.closest("[data-testid=queue-row]");
  if (row && !e.target.closest("a, button, input, select")) window.location.href = row.dataset.href;
});

// Desk questions: once one is answered in place (its row swapped for its
// outcome, marked data-focus-next), focus moves to the next open question's
// first control, so that several are answered in a row; with none left, to
// the outcome itself. A refused answer comes back with its field autofocused.
document.addEventListener("htmx:afterSettle", function () {
  const done = document.querySelector("[data-focus-next]");
  if (!done) return;
  done.removeAttribute("data-focus-next");
  const open = Array.from(document.querySelectorAll("[data-testid=desk-question]"));
  const next = open.find(function (q) {
    return done.compareDocumentPosition(q) & Node.DOCUMENT_POSITION_FOLLOWING;
  }) || open[0];
  const control = next && next.querySelector("select, input:not([type=hidden]), button");
  (control || done).focus();
});

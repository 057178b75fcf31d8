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
    if (e.key === "d") {
      // Back to the queue this page was opened from, at its row.
      const back = document.querySelector("[data-testid=queue-back]");
      window.location.href = back ? back.href : "/desk";
      e.preventDefault();
    }
    return;
  }
  switch (e.key) {
    case "?":
      if (help) { help.open ? help.close() : help.showModal(); e.preventDefault(); }
      return;
    case "j":
      if (rows.length) { select(rows, Math.min(current + 1, rows.length - 1)); e.preventDefault(); }
      else if (follow("queue-next")) e.preventDefault();
      return;
    case "k":
      if (rows.length) { select(rows, Math.max(current - 1, 0)); e.preventDefault(); }
      else if (follow("queue-previous")) e.preventDefault();
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

// In a box of several lines (a textarea) Enter makes a new line; Ctrl+Enter,
// or Cmd+Enter on a Mac, submits its form, as the keyboard help says.
document.addEventListener("keydown", function (e) {
  if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
  const box = e.target;
  if (!box || box.tagName !== "TEXTAREA" || !box.form) return;
  e.preventDefault();
  box.form.requestSubmit();
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

// On a document page, j and k follow the queue's next and previous links.
function follow(testid) {
  const link = document.querySelector("[data-testid=" + testid + "]");
  if (!link) return false;
  window.location.href = link.href;
  return true;
}

// focusOn moves focus to el (made focusable from script only) and shows it.
function focusOn(el) {
  if (!el) return;
  if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
  el.focus();
  el.scrollIntoView({ block: "nearest" });
}

// Back on the desk, the row of the document the reviewer came from is
// selected again (the document page's way back says which: ?at=ID).
// After a decision made "and next", focus is on its outcome, the flash.
// queueKey is a desk query as a queue: without page cursors and position,
// the default tab spelled out, in a stable order.
function queueKey(search) {
  const q = new URLSearchParams(search);
  ["before", "after", "at"].forEach(function (k) { q.delete(k); });
  if (!q.get("tab")) q.set("tab", "review");
  q.sort();
  return q.toString();
}

const positionKey = "greatbook.queue-position";

document.addEventListener("DOMContentLoaded", function () {
  // A document page opened from the desk remembers, for this tab of the
  // browser, which row of which queue it is, so that the browser's Back
  // finds the row again (the desk is loaded afresh).
  const doc = document.querySelector("[data-testid=document]");
  if (doc && document.querySelector("[data-testid=queue-nav]")) {
    try {
      sessionStorage.setItem(positionKey, JSON.stringify({ queue: queueKey(window.location.search), id: doc.dataset.documentId }));
    } catch (e) { /* storage refused: the links still say where */ }
  }
  let at = new URLSearchParams(window.location.search).get("at");
  if (!at && queueRows().length) {
    try {
      const saved = JSON.parse(sessionStorage.getItem(positionKey) || "null");
      if (saved && saved.queue === queueKey(window.location.search)) at = saved.id;
    } catch (e) { /* nothing remembered */ }
  }
  if (at) {
    const rows = queueRows();
    const i = rows.findIndex(function (r) { return r.dataset.documentId === at; });
    if (i >= 0) select(rows, i);
  }
  focusOn(document.querySelector("#flash .flash"));
});

// After a decision on the page, focus moves to what it led to: the
// question the bookkeeper asks, or the outcome. A question that appears
// later (the panel refreshes itself while the bookkeeper works) takes
// focus only when it still sits in the panel; polls never move it.
let decided = false;
let focusWasInPanel = false;
function aboutPanel(e) {
  return e.detail && e.detail.target && e.detail.target.id === "decision";
}
document.addEventListener("htmx:beforeRequest", function (e) {
  if (aboutPanel(e) && e.detail.requestConfig && e.detail.requestConfig.verb === "post") decided = true;
});
document.addEventListener("htmx:beforeSwap", function (e) {
  if (!aboutPanel(e)) return;
  const active = document.activeElement;
  focusWasInPanel = !!active && active !== document.body && e.detail.target.contains(active);
});
document.addEventListener("htmx:afterSettle", function (e) {
  const panel = document.getElementById("decision");
  if (!panel || !aboutPanel(e)) return;
  if (panel.contains(document.activeElement)) { decided = false; return; }
  const lost = focusWasInPanel || document.activeElement === document.body || document.activeElement === null;
  const question = panel.querySelector("[data-testid=question] select, [data-testid=question] input:not([type=hidden])");
  if (question && (decided || lost)) focusOn(question);
  else if (decided || focusWasInPanel) focusOn(panel.querySelector("[data-testid=outcome]") || panel);
  decided = false;
  focusWasInPanel = false;
});

// Coding grid: type-ahead that settles on the one account or value a
// fragment matches, percentages of a line's net, copy the row above,
// split a line, and each line's sum checked as the reviewer types.
function enhanceCoding(form) {
  const minor = parseInt(form.dataset.minorUnits || "2", 10);
  const scale = Math.pow(10, minor);
  const body = form.querySelector("[data-testid=coding-grid] tbody");
  const rows = function () { return Array.from(body.querySelectorAll("tr[data-testid=coding-row]")); };
  const rowsOf = function (line) { return rows().filter(function (r) { return r.dataset.line === line; }); };
  // Amounts are whole minor units here, so that sums are exact.
  const units = function (s) {
    const v = parseFloat(String(s).trim());
    return isFinite(v) && /^-?\d+(\.\d+)?$/.test(String(s).trim()) ? Math.round(v * scale) : null;
  };
  const text = function (u) {
    const sign = u < 0 ? "-" : "";
    const a = Math.abs(u);
    const whole = Math.floor(a / scale);
    const frac = minor > 0 ? "." + String(a % scale).padStart(minor, "0") : "";
    return sign + whole + frac;
  };
  // shown is an amount as the pages show them, thousands separated.
  const shown = function (u) {
    const t = text(u);
    const sign = t.startsWith("-") ? "-" : "";
    const parts = t.replace("-", "").split(".");
    return sign + parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (parts.length > 1 ? "." + parts[1] : "");
  };
  const netOf = function (line) {
    const check = form.querySelector('[data-testid=coding-line-check][data-line="' + line + '"]');
    return check ? units(check.dataset.net) || 0 : 0;
  };
  const amountOf = function (row) { return row.querySelector("[data-field=amount]"); };
  const sumOf = function (line, except) {
    return rowsOf(line).reduce(function (s, r) { return r === except ? s : s + (units(amountOf(r).value) || 0); }, 0);
  };

  function check() {
    let off = 0;
    form.querySelectorAll("[data-testid=coding-line-check]").forEach(function (c) {
      const net = units(c.dataset.net) || 0;
      const coded = sumOf(c.dataset.line, null);
      c.querySelector("[data-testid=coding-line-coded]").textContent = shown(coded);
      c.querySelector("[data-testid=coding-line-status]").textContent = coded === net ? "✓ sums to its net" : "off by " + shown(net - coded);
      c.dataset.off = String(coded !== net);
      if (coded !== net) off++;
    });
    form.querySelector("[data-testid=coding-summary]").textContent =
      off === 0 ? "Every line is coded to its net." : off + (off === 1 ? " line does" : " lines do") + " not sum to its net.";
  }

  function byReviewer(row) {
    row.dataset.source = "reviewer";
    const badge = row.querySelector("[data-testid=coding-source]");
    badge.textContent = "reviewer";
    badge.title = "Set by a reviewer";
  }

  // "40%": that share of the line's net, to the minor unit; the last row
  // of the line (when it is another) takes the rest.
  function percentage(row, input) {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*%\s*$/.exec(input.value);
    if (!m) return;
    const net = netOf(row.dataset.line);
    const share = net * parseFloat(m[1]) / 100;
    input.value = text(Math.sign(share) * Math.round(Math.abs(share)));
    const same = rowsOf(row.dataset.line);
    const last = same[same.length - 1];
    if (last !== row) {
      amountOf(last).value = text(net - sumOf(row.dataset.line, last));
      byReviewer(last);
    }
  }

  // Type-ahead: a fragment that is not a code settles on the one option
  // whose code starts with it or whose name contains it.
  function settle(input) {
    const list = input.list;
    const typed = input.value.trim().toLowerCase();
    if (!list || typed === "") return;
    const options = Array.from(list.options);
    if (options.some(function (o) { return o.value.toLowerCase() === typed; })) {
      input.value = options.find(function (o) { return o.value.toLowerCase() === typed; }).value;
      return;
    }
    const hits = options.filter(function (o) {
      return o.value.toLowerCase().startsWith(typed) || o.textContent.toLowerCase().includes(typed);
    });
    if (hits.length === 1) input.value = hits[0].value;
  }

  function clean(row) {
    row.querySelectorAll(".error").forEach(function (e) { e.remove(); });
    row.querySelectorAll("[aria-invalid]").forEach(function (i) { i.removeAttribute("aria-invalid"); i.removeAttribute("aria-describedby"); });
  }

  form.addEventListener("input", function (e) {
    const row = e.target.closest("tr[data-testid=coding-row]");
    if (row) byReviewer(row);
    check();
  });
  form.addEventListener("change", function (e) {
    const row = e.target.closest("tr[data-testid=coding-row]");
    if (!row) return;
    if (e.target.dataset.field === "amount") percentage(row, e.target);
    else if (e.target.list) settle(e.target);
    check();
  });
  form.addEventListener("click", function (e) {
    const button = e.target.closest("button[data-action]");
    if (!button) return;
    const row = button.closest("tr[data-testid=coding-row]");
    const all = rows();
    const i = all.indexOf(row);
    switch (button.dataset.action) {
      case "copy-above": {
        const above = all[i - 1];
        if (!above) return;
        const from = above.querySelectorAll("[data-field=account], [data-field=dimension]");
        row.querySelectorAll("[data-field=account], [data-field=dimension]").forEach(function (input, k) { input.value = from[k].value; });
        byReviewer(row);
        row.querySelector("[data-field=amount]").focus();
        break;
      }
      case "split": {
        const same = rowsOf(row.dataset.line);
        const last = same[same.length - 1];
        const copy = row.cloneNode(true);
        clean(copy);
        amountOf(copy).value = text(netOf(row.dataset.line) - sumOf(row.dataset.line, null));
        byReviewer(copy);
        last.after(copy);
        copy.querySelector("[data-field=account]").focus();
        break;
      }
      case "remove": {
        if (rowsOf(row.dataset.line).length < 2) return;
        const focus = all[i - 1] || all[i + 1];
        row.remove();
        if (focus) amountOf(focus).focus();
        break;
      }
    }
    check();
  });
  check();
}

document.addEventListener("DOMContentLoaded", function () {
  const coding = document.querySelector("[data-testid=coding-form]");
  if (coding) enhanceCoding(coding);
});

// Type-in beside the read pages: focusing a read field's input lights up
// where the field was read, and choosing a place focuses its input (without
// the script the place is a link that scrolls to the input).
function enhanceReadPlaces(form) {
  const boxes = document.querySelectorAll(".read-box[data-field]");
  if (boxes.length === 0) return;
  function light(field) {
    boxes.forEach(function (box) {
      box.classList.toggle("active", box.dataset.field === field);
    });
  }
  form.addEventListener("focusin", function (e) {
    const field = e.target.closest("[data-field]");
    light(field ? field.dataset.field : "");
    if (field) {
      const box = document.querySelector('.read-box[data-field="' + field.dataset.field + '"]');
      if (box) box.scrollIntoView({ block: "nearest" });
    }
  });
  form.addEventListener("focusout", function (e) {
    if (!e.relatedTarget || !form.contains(e.relatedTarget)) light("");
  });
  boxes.forEach(function (box) {
    box.addEventListener("click", function (e) {
      const target = form.querySelector('[data-field="' + box.dataset.field + '"]');
      if (!target) return;
      e.preventDefault();
      target.focus();
    });
  });
}

document.addEventListener("DOMContentLoaded", function () {
  const typeIn = document.querySelector("[data-testid=typein-form]");
  if (typeIn) enhanceReadPlaces(typeIn);
});

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
}

document.addEventListener("DOMContentLoaded", function () {
  const upload = document.getElementById("upload-form");
  if (upload) enhanceUpload(upload);
});

// Shared by every board page: the token travels from the page URL to each API call.
"use strict";
const TOKEN = new URLSearchParams(location.search).get("token");
function withToken(url) {
  if (!TOKEN) return url;
  return url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN);
}
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}
async function getJSON(url) {
  const r = await fetch(withToken(url));
  if (!r.ok) throw new Error(url + ": " + r.status);
  return r.json();
}
for (const a of document.querySelectorAll("a[href^='/']")) a.href = withToken(a.getAttribute("href"));

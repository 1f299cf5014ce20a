// Accessible names and roles that the theme and docutils leave out of the pages (axe-core,
// run on every page by bookkit.page_audit, reports them). Loaded by _config.yml
// (sphinx.config.html_js_files).
document.addEventListener("DOMContentLoaded", () => {
  // A bibliography is a list (docutils writes role="list"); its entries are its items
  // (docutils marks them with the deprecated role doc-biblioentry).
  document.querySelectorAll('.citation-list > [role="doc-biblioentry"]').forEach((entry) => {
    entry.setAttribute("role", "listitem");
  });
  // The sidebar's show/hide toggle of a section is a <summary> holding only an icon: name it
  // after the section's link, which precedes its <details>.
  document.querySelectorAll("details > summary").forEach((summary) => {
    if (summary.textContent.trim() || summary.getAttribute("aria-label")) return;
    const link = summary.parentElement.previousElementSibling;
    const name = link && link.textContent.trim() ? link.textContent.trim() : "this section";
    summary.setAttribute("aria-label", `Show or hide the pages of ${name}`);
  });
  // The module index folds a package's submodules behind an image whose alt text is "-".
  document.querySelectorAll("img.toggler").forEach((toggle) => {
    toggle.setAttribute("alt", "Show or hide the submodules");
  });
});

// Interactive widgets (rendered later by the widget manager): a slider or a drop-down list
// without an accessible name takes the text of its widget's label.
function nameWidgetControls(root) {
  root.querySelectorAll('[role="slider"], select, input').forEach((control) => {
    if (control.getAttribute("aria-label") || control.getAttribute("aria-labelledby")) return;
    if (control.id && document.querySelector(`label[for="${control.id}"]`)) return;
    const widget = control.closest(".widget-inline-hbox, .jupyter-widgets, .widget-box");
    const label = widget && widget.querySelector(".widget-label, label");
    const text = label ? label.textContent.trim() : "";
    control.setAttribute("aria-label", text || "widget control");
  });
}
const isWidget = (node) => node.nodeType === 1
  && (node.closest(".jupyter-widgets, .widget-subarea") || node.querySelector(".jupyter-widgets"));
new MutationObserver((changes) => {
  if (changes.some((c) => Array.from(c.addedNodes).some(isWidget))) nameWidgetControls(document);
}).observe(document.documentElement, { childList: true, subtree: true });

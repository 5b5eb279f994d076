"""The shared view as a live notebook widget, when ``anywidget`` is installed (optional: plain HTML works without it).

Why a widget at all: a researcher re-running a cell can replace the page in place (``widget.page = ...``) instead of
printing a new frame each time. The widget draws the same page in the same sandboxed frame as the plain output.
"""

from __future__ import annotations

from typing import Any

_ESM = """
function frame(el, page, height) {
  el.textContent = "";
  const f = document.createElement("iframe");
  f.setAttribute("sandbox", "allow-scripts");
  f.style.width = "100%"; f.style.height = height + "px"; f.style.border = "1px solid #ccc";
  f.srcdoc = page;
  el.appendChild(f);
}
export default {
  render({ model, el }) {
    frame(el, model.get("page"), model.get("height"));
    model.on("change:page", () => frame(el, model.get("page"), model.get("height")));
  }
};
"""


def page_widget(page: str, height: int) -> Any:
    """An anywidget holding ``page``; ImportError with the one line to install it when anywidget is missing."""
    try:
        import anywidget
        import traitlets
    except ImportError:
        raise ImportError("the live widget needs anywidget (pip install anywidget); show() without widget=True "
                          "draws the same page as plain HTML") from None

    class ScopeWidget(anywidget.AnyWidget):
        _esm = _ESM
        page = traitlets.Unicode("").tag(sync=True)
        height = traitlets.Int(860).tag(sync=True)

    return ScopeWidget(page=page, height=height)

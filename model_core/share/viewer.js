// Attention Scope's shared view: one page that draws a trace written by model_core/share/html_view.py.
// Hand-written, no library, nothing fetched. Every text from the trace is set with textContent (never as HTML).
// Numbers arrive as uint16 codes holding exactly three significant digits (model_core/share/codes.py).
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("scope-data").textContent);
  var T = DATA.text;
  var KIND_ORDER = ["encoder_self", "decoder_self", "cross"];
  var OVERLAYS = {encoder_self: ["source padding", "combined"], decoder_self: ["target padding", "causal", "combined"],
                  cross: ["source padding", "combined"]};
  var VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b",
                 "#fde725"];
  var DIVERGING = ["#2166ac", "#67a9cf", "#d1e5f0", "#f7f7f7", "#fddbc7", "#ef8a62", "#b2182b"];
  var FUTURE_LABEL = "…";
  var LABEL_CHARS = 12;

  // ------------------------------------------------------------------ words
  function fill(template, values) {
    return String(template).replace(/\{(\w+)\}/g, function (m, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : m;
    });
  }
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function cut(token) { return token.length <= LABEL_CHARS ? token : token.slice(0, LABEL_CHARS - 1) + "…"; }

  // ------------------------------------------------------------------ numbers
  var decoded = new WeakMap();
  function codesOf(enc) {
    if (!decoded.has(enc)) {
      var bin = atob(enc.b64), bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
      var view = new DataView(bytes.buffer), codes = new Uint16Array(bytes.length / 2);
      for (var j = 0; j < codes.length; j++) { codes[j] = view.getUint16(2 * j, true); }
      decoded.set(enc, codes);
    }
    return decoded.get(enc);
  }
  function parts(code, enc) {  // {sign, mantissa 100..999, decade} or a special
    if (code < 6) { return {special: code}; }
    var index = code - 6, mantissa = index % 900 + 100, rest = Math.floor(index / 900);
    return {sign: rest >= enc.decades ? -1 : 1, mantissa: mantissa, decade: rest % enc.decades + enc.lowest};
  }
  function valueOf(code, enc) {
    var p = parts(code, enc);
    if (p.special !== undefined) {
      return [0, NaN, Infinity, -Infinity, Math.pow(10, enc.lowest - 1), -Math.pow(10, enc.lowest - 1)][p.special];
    }
    return p.sign * p.mantissa * Math.pow(10, p.decade - 2);
  }
  function stripZeros(text) { return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, ""); }
  // Python's format(v, ".3g") of the stored digits, built from the integers (no float rounding on the way)
  function formatCode(code, enc) {
    var p = parts(code, enc);
    if (p.special !== undefined) {
      return ["0", "nan", "inf", "-inf", "< 1e" + enc.lowest, "> -1e" + enc.lowest][p.special];
    }
    var d = String(p.mantissa), x = p.decade, text;
    if (x < -4 || x >= 3) {
      var e = Math.abs(x);
      text = stripZeros(d[0] + "." + d.slice(1)) + "e" + (x < 0 ? "-" : "+") + (e < 10 ? "0" : "") + e;
    } else if (x >= 0) {
      text = stripZeros(d.slice(0, x + 1) + "." + d.slice(x + 1));
    } else {
      text = stripZeros("0." + "0".repeat(-x - 1) + d);
    }
    return (p.sign < 0 ? "-" : "") + text;
  }
  function bitsOf(b64, n) {
    var bin = atob(b64), out = new Uint8Array(n);
    for (var i = 0; i < n; i++) { out[i] = (bin.charCodeAt(i >> 3) >> (7 - (i & 7))) & 1; }
    return out;
  }
  function hexRgb(h) { return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]; }
  function lut(anchors) {  // 256 [r, g, b], linear between the anchors
    var rgb = anchors.map(hexRgb), out = [];
    for (var i = 0; i < 256; i++) {
      var x = i / 255 * (rgb.length - 1), k = Math.min(Math.floor(x), rgb.length - 2), f = x - k;
      out.push([0, 1, 2].map(function (c) { return Math.round(rgb[k][c] + f * (rgb[k + 1][c] - rgb[k][c])); }));
    }
    return out;
  }
  var SEQUENTIAL_RGB = lut(VIRIDIS), SIGNED_RGB = lut(DIVERGING);

  // ------------------------------------------------------------------ state
  var kinds = KIND_ORDER.filter(function (k) { return DATA.kinds[k]; });
  var S = {
    view: "weights",
    kind: kinds.indexOf(DATA.initial.kind) >= 0 ? DATA.initial.kind : kinds[0],
    layer: DATA.initial.layer, head: DATA.initial.head === null ? "mean" : DATA.initial.head,
    step: DATA.initial.step, overlays: {}
  };
  function kindData() { return DATA.kinds[S.kind]; }
  // the analyses, drawn from what each plug-in declared (html_view.py): per-kind maps ("maps"), one map of the whole
  // decoding ("whole") or a grid of decoder layers × steps with a text in each cell ("grid"); none is named here
  var ANALYSES = {};
  DATA.analyses.forEach(function (a) { ANALYSES[a.name] = a; });
  function analysis() { return ANALYSES[S.view] || null; }
  function views() {
    var found = ["weights"];
    if (kinds.some(function (k) { return DATA.kinds[k].scores; })) { found.push("scores"); }
    DATA.analyses.forEach(function (a) { found.push(a.name); });
    return found;
  }
  function viewLabel(v) { return ANALYSES[v] ? ANALYSES[v].label : T[v]; }
  // whether the view v has a map for the kind k (one of the whole decoding has it for every kind)
  function viewHasKind(v, k) {
    var a = ANALYSES[v];
    if (!a) { return v === "weights" || !!DATA.kinds[k][v]; }
    return a.type !== "maps" || !!a.kinds[k];
  }
  function headText() { return S.head === "mean" ? T.mean : fill(T.head_n, {head: S.head}); }
  function analysisTitle(a) {
    var values = {kind: T[S.kind], layer: S.layer, head: headText(), step: S.step, total: DATA.steps};
    if (a.title) { return fill(a.title, values); }
    if (a.type === "maps" && a.usesLayer) {
      return fill(T.map_title, {kind: a.label + " · " + T[S.kind], layer: S.layer, head: a.usesHead ? headText() : T.every_head,
                                step: S.step, total: DATA.steps});
    }
    return fill(T.analysis_title, {label: a.type === "maps" ? a.label + " · " + T[S.kind] : a.label, step: S.step,
                                   total: DATA.steps});
  }
  // the largest value of codes [from, to): a colour scale's top
  function largest(enc, from, to) {
    var codes = codesOf(enc), top = 0;
    for (var i = from; i < to; i++) { var v = valueOf(codes[i], enc); if (isFinite(v)) { top = Math.max(top, v); } }
    return top;
  }

  // the decoder rows' labels at a step, as the window writes them ("le → chat"; "…" not yet decoded)
  function decoderRows(full) {
    var rows = [];
    for (var i = 0; i < DATA.tgt.length; i++) {
      var known = i < S.step, input = DATA.tgt[i];  // a typed target too: rows ahead do not give the answer away
      if (!known) { rows.push(FUTURE_LABEL); continue; }
      if (DATA.tgtPad[i] || i >= DATA.out.length) { rows.push(input); continue; }
      var label = (full ? input : cut(input)) + " → " + (full ? DATA.out[i] : cut(DATA.out[i]));
      if (DATA.forced && DATA.first && i < DATA.first.length && DATA.first[i] !== DATA.out[i]) {
        label = fill(T.model_choice, {label: label, token: DATA.first[i]});
      }
      rows.push(label);
    }
    return rows;
  }
  function decoderInputs() {
    return DATA.tgt.map(function (tok, i) { return i < S.step ? tok : FUTURE_LABEL; });
  }

  // what the heatmap shows now: {enc, at(row, col) → code index, rows, cols, rowLabels, colLabels, title, qLabel, kLabel,
  // signed, scale ("fixed" 0..1, "scores" min..max, else 0..the largest shown), range, decoder (rows after the step are
  // blank), kind (for the masks), overlays, text(row, col) (a grid's cell texts), note}
  function currentMap() {
    var kd = kindData(), a = analysis(), total = DATA.steps, i;
    var m = {signed: false, range: null, decoder: S.kind !== "encoder_self", kind: S.kind, note: a ? a.note : null,
             text: null, scale: "fixed", overlays: false};
    var qDecoder = DATA.forced ? T.query_forced : T.query_decoder;
    if (a) {
      m.signed = a.signed;
      m.scale = a.weightsLike && !a.logScale ? "fixed" : "largest";
    }
    if (a && a.type === "whole") {  // decoder positions × source tokens; kind, layer and head do not apply
      m.enc = a.map; m.rows = m.enc.shape[0]; m.cols = m.enc.shape[1]; m.decoder = true; m.kind = "cross";
      m.at = function (r, c) { return r * m.cols + c; };
      m.rowLabels = decoderRows(false); m.rowFull = decoderRows(true);
      m.colLabels = DATA.src; m.qLabel = qDecoder; m.kLabel = T.key_source;
      m.title = analysisTitle(a);
      return m;
    }
    if (a && a.type === "grid") {  // decoder layers (the last at the top) × the steps so far, a text in each cell
      var n = a.values.shape[0], steps = a.values.shape[1], shown = total ? Math.max(S.step, 1) : 0;
      m.enc = a.values; m.rows = n; m.cols = Math.min(shown, steps); m.decoder = false; m.grid = true;
      m.at = function (r, c) { return (n - 1 - r) * steps + c; };
      m.text = function (r, c) { return a.texts[n - 1 - r][c]; };
      m.rowLabels = [];
      for (i = 0; i < n; i++) { m.rowLabels.push(fill(T.layer_n, {layer: n - 1 - i})); }
      m.rowFull = m.rowLabels;
      m.colLabels = DATA.out.slice(0, m.cols).map(function (tok, c) { return (c + 1) + ": " + tok; });
      m.qLabel = T.decoder_layer; m.kLabel = T.step_written; m.title = analysisTitle(a);
      return m;
    }
    var layerIndex = Math.max(0, kd.layers.indexOf(S.layer)), head = S.head === "mean" ? kd.heads : S.head;
    var per, size;
    if (a) {  // an analysis's maps of this kind: [layers, heads + 1 (their mean last) or 1, Q, K]
      var ak = a.kinds[S.kind], li = a.usesLayer ? Math.max(0, ak.layers.indexOf(S.layer)) : 0;
      m.enc = ak.maps; per = ak.maps.shape[1];
      m.rows = ak.maps.shape[2]; m.cols = ak.maps.shape[3]; size = m.rows * m.cols;
      m.offset = (li * per + (ak.heads ? (S.head === "mean" ? ak.heads : S.head) : 0)) * size;
      if (a.layerLevels) {  // 0 to the largest of the layer, so the heads compare (as the window)
        var top = largest(m.enc, li * per * size, (li + 1) * per * size);
        m.range = [0, top > 0 ? top : 1];
      }
      m.overlays = a.masks;
      m.title = analysisTitle(a);
    } else {
      var shape = kd.weights.shape;  // [layers, heads + 1, Q, K]
      m.rows = shape[2]; m.cols = shape[3];
      m.enc = S.view === "weights" ? kd.weights : kd.scores;
      m.offset = ((layerIndex * (kd.heads + 1)) + head) * m.rows * m.cols;
      if (S.view === "scores") { m.signed = true; m.scale = "scores"; }
      m.overlays = true;
      m.title = fill(T.map_title, {kind: S.view === "weights" ? T[S.kind] : T[S.view] + " · " + T[S.kind],
                                   layer: S.layer, head: headText(), step: S.step, total: total});
    }
    m.at = function (r, c) { return m.offset + r * m.cols + c; };
    if (S.kind === "encoder_self") {
      m.rowLabels = DATA.src.map(cut); m.rowFull = DATA.src; m.colLabels = DATA.src; m.qLabel = T.query_source; m.kLabel = T.key_source;
      m.decoder = false;
    } else {
      m.rowLabels = decoderRows(false); m.rowFull = decoderRows(true); m.qLabel = qDecoder;
      m.colLabels = S.kind === "decoder_self" ? decoderInputs() : DATA.src;
      m.kLabel = S.kind === "decoder_self" ? T.key_decoder : T.key_source;
    }
    if (!a || (a.usesHead && a.usesLayer)) {  // a switched-off head: said as in the window
      var off = kd.off.filter(function (p) { return p[0] === S.layer; }).map(function (p) { return p[1]; });
      if (S.head !== "mean" && off.indexOf(S.head) >= 0) { m.title = fill(T.switched_off, {title: m.title}); }
      else if (S.head === "mean" && off.length) { m.title = fill(T.heads_off, {title: m.title, n: off.length, total: kd.heads}); }
    }
    return m;
  }

  function overlayMask(name, kind, rows, cols) {  // 1 = blocked by this mask
    var kd = DATA.kinds[kind], out = new Uint8Array(rows * cols);
    var allowed = name === "combined" ? bitsOf(kd.allowed, rows * cols) : null;
    for (var r = 0; r < rows; r++) {
      for (var c = 0; c < cols; c++) {
        var blocked = 0;
        if (name === "source padding") { blocked = DATA.srcPad[c]; }
        else if (name === "target padding") { blocked = DATA.tgtPad[c]; }
        else if (name === "causal") { blocked = c > r ? 1 : 0; }
        else { blocked = allowed[r * cols + c] ? 0 : 1; }
        out[r * cols + c] = blocked;
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ page
  var root = document.getElementById("scope");
  var header = el("header");
  header.appendChild(el("h1", null, DATA.model ? fill(T.title, {model: DATA.model}) : "Attention Scope"));
  var sentence = el("div", {class: "sentence"});
  function chipLine(label, tokens, id) {
    var line = el("div", {class: "line", id: id});
    line.appendChild(el("span", {class: "line-label"}, label));
    var chips = el("span", {class: "chips"});
    tokens.forEach(function (tok, i) {
      var chip = el("button", {class: "chip", type: "button", "data-index": String(i)}, tok);
      chips.appendChild(chip);
    });
    line.appendChild(chips);
    return line;
  }
  sentence.appendChild(chipLine(T.source, DATA.src, "source-line"));
  var outLine = chipLine(DATA.forced ? T.typed_target : T.output, DATA.out, "output-line");
  sentence.appendChild(outLine);
  var translation = el("div", {class: "line translation", id: "translation"});
  translation.appendChild(el("span", {class: "line-label"}, T.translation));
  translation.appendChild(el("span", {class: "translation-text"}, DATA.translation));
  sentence.appendChild(translation);
  header.appendChild(sentence);
  root.appendChild(header);

  var controls = el("section", {class: "controls"});
  function picker(label, id) {
    var box = el("label", {class: "picker"});
    box.appendChild(el("span", null, label));
    var select = el("select", {id: id});
    box.appendChild(select);
    controls.appendChild(box);
    return select;
  }
  var viewSel = picker(T.view, "view"), kindSel = picker(T.kind, "kind");
  var layerSel = picker(T.layer, "layer"), headSel = picker(T.head, "head");
  views().forEach(function (v) { viewSel.appendChild(el("option", {value: v}, viewLabel(v))); });
  kinds.forEach(function (k) { kindSel.appendChild(el("option", {value: k}, T[k])); });
  var stepBox = el("div", {class: "stepper"});
  var prev = el("button", {type: "button", id: "prev", "aria-label": "←"}, "←");
  var slider = el("input", {type: "range", id: "step", min: "0", max: String(DATA.steps), step: "1", "aria-label": T.step});
  var next = el("button", {type: "button", id: "next", "aria-label": "→"}, "→");
  var stepText = el("span", {id: "step-text", class: "step-text"});
  [prev, slider, next, stepText].forEach(function (n) { stepBox.appendChild(n); });
  controls.appendChild(stepBox);
  var overlayBox = el("div", {class: "overlays", id: "overlays"});
  controls.appendChild(overlayBox);
  controls.appendChild(el("p", {class: "hint"}, T.step_keys));
  root.appendChild(controls);

  var mapSection = el("section", {class: "map"});
  var mapTitle = el("h2", {id: "map-title"});
  var mapNote = el("p", {class: "note", id: "map-note"});
  var axes = el("p", {class: "axes", id: "axes"});
  var wrap = el("div", {class: "canvas-wrap", id: "canvas-wrap"});
  var canvas = el("canvas", {id: "heatmap", role: "img"});
  wrap.appendChild(canvas);
  var cursor = el("div", {class: "cell-cursor", id: "cell-cursor"});  // the cell the readout is about
  wrap.appendChild(cursor);
  var readout = el("p", {class: "readout", id: "readout", "aria-live": "polite"});
  var rowOut = el("span", {id: "readout-row"}), colOut = el("span", {id: "readout-col"});
  var valueOut = el("span", {id: "readout-value", class: "value"});
  var textOut = el("span", {id: "readout-text", class: "cell-text"});
  [mapTitle, mapNote, axes, wrap, readout].forEach(function (n) { mapSection.appendChild(n); });
  root.appendChild(mapSection);

  var side = el("section", {class: "side"});
  var nextBox = el("div", {class: "panel", id: "next-token"});
  nextBox.appendChild(el("h2", null, T.next_token));
  var nextCaption = el("p", {class: "caption", id: "next-caption"});
  var bars = el("div", {class: "bars", id: "bars"});
  nextBox.appendChild(nextCaption); nextBox.appendChild(bars);
  var posBox = el("div", {class: "panel", id: "positional"});
  posBox.appendChild(el("h2", null, T.positional));
  side.appendChild(nextBox); side.appendChild(posBox);
  root.appendChild(side);
  var footer = el("footer");
  footer.appendChild(el("p", null, T.about));
  root.appendChild(footer);

  // ------------------------------------------------------------------ pickers
  function fillLayers() {
    var kd = kindData();
    layerSel.textContent = "";
    kd.layers.forEach(function (la) { layerSel.appendChild(el("option", {value: String(la)}, String(la))); });
    if (kd.layers.indexOf(S.layer) < 0) { S.layer = kd.layers[0]; }
    layerSel.value = String(S.layer);
    headSel.textContent = "";
    headSel.appendChild(el("option", {value: "mean"}, T.mean));
    for (var h = 0; h < kd.heads; h++) { headSel.appendChild(el("option", {value: String(h)}, fill(T.head_n, {head: h}))); }
    if (S.head !== "mean" && S.head >= kd.heads) { S.head = "mean"; }
    headSel.value = String(S.head);
    if (!viewHasKind(S.view, S.kind)) { S.view = "weights"; }
    viewSel.value = S.view;
    overlayBox.textContent = "";
    overlayBox.appendChild(el("span", {class: "line-label"}, T.overlays));
    OVERLAYS[S.kind].forEach(function (name) {
      var box = el("label", {class: "overlay"});
      var check = el("input", {type: "checkbox", "data-overlay": name});
      check.checked = !!S.overlays[name];
      check.addEventListener("change", function () { S.overlays[name] = check.checked; draw(); });
      box.appendChild(check); box.appendChild(el("span", null, T[name]));
      overlayBox.appendChild(box);
    });
  }
  viewSel.addEventListener("change", function () {
    S.view = viewSel.value;
    if (!viewHasKind(S.view, S.kind)) {  // an analysis without this kind: its first kind
      S.kind = kinds.filter(function (k) { return viewHasKind(S.view, k); })[0];
      fillLayers();
    }
    draw();
  });
  kindSel.addEventListener("change", function () { S.kind = kindSel.value; fillLayers(); draw(); });
  layerSel.addEventListener("change", function () { S.layer = Number(layerSel.value); draw(); });
  headSel.addEventListener("change", function () { S.head = headSel.value === "mean" ? "mean" : Number(headSel.value); draw(); });
  function setStep(t) { S.step = Math.max(0, Math.min(DATA.steps, t)); draw(); }
  slider.addEventListener("input", function () { setStep(Number(slider.value)); });
  prev.addEventListener("click", function () { setStep(S.step - 1); });
  next.addEventListener("click", function () { setStep(S.step + 1); });
  outLine.addEventListener("click", function (ev) {
    var i = ev.target && ev.target.getAttribute && ev.target.getAttribute("data-index");
    if (i !== null && i !== undefined) { setStep(Number(i) + 1); }
  });
  document.addEventListener("keydown", function (ev) {
    var tag = ev.target && ev.target.tagName;
    if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && ev.target.type === "range")) { return; }
    if (ev.key === "ArrowLeft") { setStep(S.step - 1); ev.preventDefault(); }
    else if (ev.key === "ArrowRight") { setStep(S.step + 1); ev.preventDefault(); }
    else if (ev.key === "Home") { setStep(0); ev.preventDefault(); }
    else if (ev.key === "End") { setStep(DATA.steps); ev.preventDefault(); }
  });

  // ------------------------------------------------------------------ heatmap
  var geometry = null;  // where the last drawing put its cells, for the pointer and the tests
  function drawHeatmap(m) {
    var narrow = window.innerWidth < 600, font = narrow ? 10 : 12, dpr = window.devicePixelRatio || 1;
    var ctx = canvas.getContext("2d");
    ctx.font = font + "px system-ui, sans-serif";
    // row labels come cut per token ("petit → chien"); column labels are cut here
    var measure = function (labels) { return labels.reduce(function (w, s) { return Math.max(w, ctx.measureText(s).width); }, 0); };
    var rowW = Math.min(measure(m.rowLabels) + 10, narrow ? 120 : 200);
    var colH = Math.min(measure(m.colLabels.map(cut)) + 10, narrow ? 90 : 130);
    // square cells that fit the width and, on a wide screen, about the window's height; never under 12-14 px (the
    // labels must stay readable: the frame scrolls instead), except for a long sentence
    var below = window.innerHeight - (wrap.getBoundingClientRect().top + window.scrollY) - 70;  // room left for it
    var avail = Math.max(wrap.clientWidth - rowW - 8, 50), tall = Math.max(below, window.innerHeight * 0.45) - colH;
    var fit = Math.floor(Math.min(avail / Math.max(m.cols, 1), narrow ? Infinity : tall / Math.max(m.rows, 1)));
    var least = m.cols > 300 || m.rows > 300 ? 2 : (narrow ? 12 : 14);
    var cell = Math.max(Math.min(fit, 44), least), cellH = cell;
    if (m.text) {  // a grid with a word in each cell: cells as wide as the words (up to 12 characters), when they fit
      var widest = 0;
      for (var tr = 0; tr < m.rows; tr++) {
        for (var tc = 0; tc < m.cols; tc++) { widest = Math.max(widest, ctx.measureText(cut(m.text(tr, tc))).width); }
      }
      cellH = Math.max(Math.min(Math.floor(tall / Math.max(m.rows, 1)), 36), 22);
      cell = Math.max(Math.min(Math.ceil(widest) + 10, 130), cellH);
      if (cell * m.cols > avail) { cell = Math.max(Math.floor(avail / Math.max(m.cols, 1)), least); }
    }
    var width = rowW + cell * m.cols + 8, height = colH + cellH * m.rows + 8;
    canvas.width = Math.round(width * dpr); canvas.height = Math.round(height * dpr);
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, width, height);
    var codes = codesOf(m.enc), lo = 0, hi = 1, r, c, v;
    var visibleRows = m.decoder ? Math.min(S.step, m.rows) : m.rows;
    var values = new Float64Array(visibleRows * m.cols);  // the visible cells, read once
    for (r = 0; r < visibleRows; r++) {
      for (c = 0; c < m.cols; c++) { values[r * m.cols + c] = valueOf(codes[m.at(r, c)], m.enc); }
    }
    if (m.range) { lo = m.range[0]; hi = m.range[1]; }
    else if (m.signed || m.scale !== "fixed") {  // weights and values like them keep 0..1, as in the window
      var least = Infinity, most = -Infinity, big = 0;
      for (var i = 0; i < values.length; i++) {
        if (isFinite(values[i])) { least = Math.min(least, values[i]); most = Math.max(most, values[i]); big = Math.max(big, Math.abs(values[i])); }
      }
      if (m.scale === "scores") { lo = least; hi = most; if (!(hi > lo)) { lo = (isFinite(lo) ? lo : 0) - 1; hi = lo + 2; } }
      else if (m.signed) { lo = -(big || 1); hi = big || 1; }
      else { hi = most > 0 ? most : 1; }
    }
    var table = m.signed && m.scale !== "scores" ? SIGNED_RGB : SEQUENTIAL_RGB;
    var x0 = rowW, y0 = colH, blocked = [];
    // one pixel a cell in an image scaled up without smoothing: a 1,000 × 1,000 map draws at once
    var image = new ImageData(Math.max(m.cols, 1), Math.max(m.rows, 1));
    for (r = 0; r < m.rows; r++) {
      for (c = 0; c < m.cols; c++) {
        var rgb, at = 4 * (r * m.cols + c);
        if (r >= visibleRows) { rgb = [240, 240, 240]; }
        else {
          v = values[r * m.cols + c];
          if (!isFinite(v)) { rgb = [217, 217, 217]; blocked.push([r, c]); }
          else { rgb = table[Math.max(0, Math.min(255, Math.round((v - lo) / (hi - lo) * 255)))]; }
        }
        image.data[at] = rgb[0]; image.data[at + 1] = rgb[1]; image.data[at + 2] = rgb[2]; image.data[at + 3] = 255;
      }
    }
    var pixels = document.createElement("canvas");
    pixels.width = image.width; pixels.height = image.height;
    pixels.getContext("2d").putImageData(image, 0, 0);
    ctx.imageSmoothingEnabled = false;
    if (m.rows && m.cols) { ctx.drawImage(pixels, x0, y0, cell * m.cols, cellH * m.rows); }
    blocked.forEach(function (p) { hatch(ctx, x0 + p[1] * cell, y0 + p[0] * cellH, cell, cellH); });
    if (m.overlays) {
      OVERLAYS[S.kind].forEach(function (name) {
        if (!S.overlays[name]) { return; }
        var mask = overlayMask(name, m.kind, m.rows, m.cols);
        for (var rr = 0; rr < m.rows; rr++) {
          for (var cc = 0; cc < m.cols; cc++) {
            if (mask[rr * m.cols + cc]) {
              ctx.fillStyle = "rgba(40,40,40,0.45)"; ctx.fillRect(x0 + cc * cell, y0 + rr * cellH, cell, cellH);
              hatch(ctx, x0 + cc * cell, y0 + rr * cellH, cell, cellH);
            }
          }
        }
      });
    }
    if (m.text && cellH >= 16) {  // each cell's word, dark on light colours and white on dark ones
      ctx.font = font + "px system-ui, sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      for (r = 0; r < m.rows; r++) {
        for (c = 0; c < m.cols; c++) {
          var at = 4 * (r * m.cols + c), dark = 0.299 * image.data[at] + 0.587 * image.data[at + 1] + 0.114 * image.data[at + 2] < 140;
          ctx.fillStyle = dark ? "#ffffff" : "#111111";
          ctx.fillText(cut(m.text(r, c)), x0 + c * cell + cell / 2, y0 + r * cellH + cellH / 2, cell - 4);
        }
      }
    }
    if (m.decoder && S.step > 0 && S.step <= m.rows) {  // the current row
      ctx.strokeStyle = "#f28e2b"; ctx.lineWidth = 2;
      ctx.strokeRect(x0 + 1, y0 + (S.step - 1) * cellH + 1, cell * m.cols - 2, cellH - 2);
    }
    if (m.grid && S.step > 0 && S.step <= m.cols) {  // the current step's column
      ctx.strokeStyle = "#f28e2b"; ctx.lineWidth = 2;
      ctx.strokeRect(x0 + (S.step - 1) * cell + 1, y0 + 1, cell - 2, cellH * m.rows - 2);
    }
    // labels: every row and column when they fit (≥ 9 px a cell), else every k-th
    ctx.fillStyle = "#222"; ctx.textBaseline = "middle"; ctx.textAlign = "right";
    var rowEvery = Math.max(1, Math.ceil(9 / cellH)), colEvery = Math.max(1, Math.ceil(9 / cell));
    for (r = 0; r < m.rows; r += rowEvery) {
      ctx.fillText(m.rowLabels[r] || "", x0 - 5, y0 + r * cellH + cellH / 2, rowW - 8);
    }
    ctx.textAlign = "left";
    for (c = 0; c < m.cols; c += colEvery) {
      ctx.save();
      ctx.translate(x0 + c * cell + cell / 2, y0 - 5);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(cut(m.colLabels[c] || ""), 0, 0);
      ctx.restore();
    }
    geometry = {x0: x0, y0: y0, cell: cell, cellH: cellH, rows: m.rows, cols: m.cols, map: m, visibleRows: visibleRows};
    canvas.setAttribute("aria-label", m.title);
  }
  function hatch(ctx, x, y, w, h) {
    ctx.save();
    ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip();
    ctx.strokeStyle = "rgba(255,255,255,0.6)"; ctx.lineWidth = 1;
    for (var d = -h; d < w; d += 5) { ctx.beginPath(); ctx.moveTo(x + d, y + h); ctx.lineTo(x + d + h, y); ctx.stroke(); }
    ctx.restore();
  }
  function cellAt(px, py) {
    if (!geometry) { return null; }
    var c = Math.floor((px - geometry.x0) / geometry.cell), r = Math.floor((py - geometry.y0) / geometry.cellH);
    return r >= 0 && c >= 0 && r < geometry.rows && c < geometry.cols ? {row: r, col: c} : null;
  }
  function showCell(hit) {
    readout.textContent = "";
    if (!hit || hit.row >= geometry.rows || hit.col >= geometry.cols) {
      readout.removeAttribute("data-row"); readout.removeAttribute("data-col");
      cursor.style.display = "none";
      readout.appendChild(document.createTextNode(T.hover_hint));
      return;
    }
    var m = geometry.map;
    var rowText = m.rowFull[hit.row], colText = m.colLabels[hit.col];
    var value = hit.row < geometry.visibleRows ? formatCode(codesOf(m.enc)[m.at(hit.row, hit.col)], m.enc) : FUTURE_LABEL;
    rowOut.textContent = rowText; colOut.textContent = colText; valueOut.textContent = value;
    textOut.textContent = m.text ? m.text(hit.row, hit.col) : "";
    var template = m.text ? T.grid_readout : T.readout, pieces = template.split(/(\{row\}|\{col\}|\{value\}|\{text\})/);
    pieces.forEach(function (piece) {
      if (piece === "{row}") { readout.appendChild(rowOut); }
      else if (piece === "{col}") { readout.appendChild(colOut); }
      else if (piece === "{value}") { readout.appendChild(valueOut); }
      else if (piece === "{text}") { readout.appendChild(textOut); }
      else if (piece) { readout.appendChild(document.createTextNode(piece)); }
    });
    readout.setAttribute("data-row", String(hit.row)); readout.setAttribute("data-col", String(hit.col));
    cursor.style.display = "block";
    cursor.style.left = (geometry.x0 + hit.col * geometry.cell) + "px";
    cursor.style.top = (geometry.y0 + hit.row * geometry.cellH) + "px";
    cursor.style.width = geometry.cell + "px"; cursor.style.height = geometry.cellH + "px";
  }
  function pointer(ev) {
    var box = canvas.getBoundingClientRect();
    showCell(cellAt(ev.clientX - box.left, ev.clientY - box.top));
  }
  canvas.addEventListener("pointermove", pointer);
  canvas.addEventListener("pointerdown", pointer);

  // ------------------------------------------------------------------ next token, positional encoding
  function formatProb(p) { return p >= 5e-4 || p === 0 ? p.toFixed(3) : p.toExponential(1); }
  function drawNext() {
    bars.textContent = "";
    if (S.step === 0) { nextCaption.textContent = T.step0; return; }
    var row = DATA.next[S.step - 1];
    if (!row) { nextCaption.textContent = fill(T.padding_row, {step: S.step}); return; }
    var chosen = row.chosen, top = row.top.length ? row.top[0][1] : 1;
    var shown = row.top.slice();
    if (chosen && !shown.some(function (b) { return b[2] === chosen[3]; })) { shown.push([chosen[0], chosen[1], chosen[3], chosen[2]]); }
    shown.forEach(function (b) {
      var isChosen = chosen && b[2] === chosen[3];
      var line = el("div", {class: "bar" + (isChosen ? " chosen" : "")});
      line.appendChild(el("span", {class: "bar-token"}, b[0]));
      var track = el("span", {class: "bar-track"});
      var fillBar = el("span", {class: "bar-fill"});
      fillBar.style.width = Math.max(0.5, 100 * b[1] / Math.max(top, chosen ? chosen[1] : 0, 1e-12)) + "%";
      track.appendChild(fillBar); line.appendChild(track);
      line.appendChild(el("span", {class: "bar-p"}, b.length > 3 ? fill(T.rank_outside, {token: "", p: formatProb(b[1]), rank: b[3]}).trim() : formatProb(b[1])));
      bars.appendChild(line);
    });
    nextCaption.textContent = chosen ? fill(DATA.forced ? T.typed : T.chosen,
      {token: "“" + chosen[0] + "”", p: formatProb(chosen[1]), rank: chosen[2]}) : "";
  }
  function drawPositional() {
    var pos = DATA.positional, old = posBox.querySelector("svg, p.caption");
    while (old) { old.remove(); old = posBox.querySelector("svg, p.caption"); }
    if (!pos.dims.length) { posBox.appendChild(el("p", {class: "caption"}, fill(T.positional_none, {kind: pos.kind || "none"}))); return; }
    var ns = "http://www.w3.org/2000/svg", w = 360, h = 180, pad = 28;
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + (h + 40)); svg.setAttribute("class", "curves");
    var n = pos.curves[0].length, sx = function (i) { return pad + (w - pad - 6) * (n > 1 ? i / (n - 1) : 0); };
    var sy = function (v) { return h / 2 - (h / 2 - 8) * Math.max(-1.2, Math.min(1.2, v)) / 1.2; };
    var axis = document.createElementNS(ns, "line");
    [["x1", pad], ["x2", w - 6], ["y1", sy(0)], ["y2", sy(0)], ["stroke", "#999"]].forEach(function (a) { axis.setAttribute(a[0], a[1]); });
    svg.appendChild(axis);
    var colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
    pos.curves.forEach(function (curve, k) {
      var line = document.createElementNS(ns, "polyline");
      line.setAttribute("points", curve.map(function (v, i) { return sx(i).toFixed(1) + "," + sy(v).toFixed(1); }).join(" "));
      line.setAttribute("fill", "none"); line.setAttribute("stroke", colours[k % colours.length]); line.setAttribute("stroke-width", "1.5");
      svg.appendChild(line);
      var key = document.createElementNS(ns, "text");
      key.setAttribute("x", String(pad + (k % 4) * 82)); key.setAttribute("y", String(h + 16 + Math.floor(k / 4) * 16));
      key.setAttribute("fill", colours[k % colours.length]); key.setAttribute("font-size", "11");
      key.textContent = fill(T.dimension, {dim: pos.dims[k]});
      svg.appendChild(key);
    });
    if (S.step > 0 && S.step <= n) {  // the decoder position of this step
      var mark = document.createElementNS(ns, "line");
      [["x1", sx(S.step - 1)], ["x2", sx(S.step - 1)], ["y1", 4], ["y2", h - 4], ["stroke", "#f28e2b"], ["stroke-dasharray", "3 3"]]
        .forEach(function (a) { mark.setAttribute(a[0], a[1]); });
      svg.appendChild(mark);
    }
    var label = document.createElementNS(ns, "text");
    label.setAttribute("x", String(w - 6)); label.setAttribute("y", String(h - 2)); label.setAttribute("text-anchor", "end");
    label.setAttribute("font-size", "11"); label.setAttribute("fill", "#555"); label.textContent = T.position + " 0 … " + (n - 1);
    svg.appendChild(label);
    posBox.appendChild(svg);
  }

  // ------------------------------------------------------------------ one redraw
  function draw() {
    slider.value = String(S.step);
    stepText.textContent = fill(T.step_of, {step: S.step, total: DATA.steps});
    kindSel.value = S.kind; layerSel.value = String(S.layer); headSel.value = String(S.head); viewSel.value = S.view;
    var a = analysis();
    kindSel.disabled = !!a && !a.usesKind; layerSel.disabled = !!a && !a.usesLayer; headSel.disabled = !!a && !a.usesHead;
    Array.prototype.forEach.call(kindSel.options, function (o) { o.disabled = !viewHasKind(S.view, o.value); });
    Array.prototype.forEach.call(outLine.querySelectorAll(".chip"), function (chip, i) {
      chip.classList.toggle("current", i === S.step - 1);
      chip.classList.toggle("future", !DATA.forced && i >= S.step);
    });
    var m = currentMap();
    overlayBox.style.visibility = m.overlays ? "visible" : "hidden";
    mapTitle.textContent = m.title;
    mapNote.textContent = m.note || "";
    mapNote.style.display = m.note ? "block" : "none";
    axes.textContent = m.qLabel + " · " + m.kLabel;
    drawHeatmap(m);
    var last = readout.getAttribute("data-row");
    showCell(last === null ? null : {row: Number(last), col: Number(readout.getAttribute("data-col"))});
    drawNext();
    drawPositional();
  }
  fillLayers();
  draw();
  var resizing = null;
  window.addEventListener("resize", function () { clearTimeout(resizing); resizing = setTimeout(draw, 100); });
  // for tests and for anyone scripting the page: where a cell is drawn, and the state
  window.attentionScope = {
    state: S,
    shown: function () { return {rows: geometry.rows, cols: geometry.cols, title: geometry.map.title}; },
    cellCenter: function (row, col) {
      var box = canvas.getBoundingClientRect();
      return {x: box.left + geometry.x0 + (col + 0.5) * geometry.cell, y: box.top + geometry.y0 + (row + 0.5) * geometry.cellH};
    }
  };
}());

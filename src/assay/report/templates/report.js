// assay report: per-case drill-down. Model and data text is only ever inserted with textContent,
// never as HTML, so an answer containing markup is shown, not executed.
(function () {
  "use strict";
  var source = document.getElementById("assay-cases");
  if (!source) { return; }
  var data = JSON.parse(source.textContent);
  var entries = data.entries || [];
  var PAGE = 200;
  var shown = PAGE;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") { node.textContent = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
      });
    }
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  function num(v) {
    if (v === null || v === undefined) { return "—"; }
    if (typeof v !== "number") { return String(v); }
    return Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.001) ? v.toExponential(2) : String(Math.round(v * 1000) / 1000);
  }

  function badge(passed, status) {
    if (status && status !== "ok") { return el("span", { "class": "badge not_measured", text: status }); }
    if (passed === true) { return el("span", { "class": "badge pass", text: "pass" }); }
    if (passed === false) { return el("span", { "class": "badge fail", text: "fail" }); }
    return el("span", { "class": "badge info", text: "no threshold" });
  }

  var modelSelect = document.getElementById("case-model");
  var statusSelect = document.getElementById("case-status");
  var search = document.getElementById("case-search");
  var tbody = document.querySelector("#case-table tbody");
  var more = document.getElementById("case-more");
  var count = document.getElementById("case-count");
  var detail = document.getElementById("case-detail");

  var models = {};
  entries.forEach(function (e) { models[e.model] = true; });
  Object.keys(models).sort().forEach(function (m) {
    modelSelect.appendChild(el("option", { value: m, text: m || "(unnamed)" }));
  });

  // The shown turns' contents and trajectory steps' tools, final answer: searchable too.
  function dialogueText(e) {
    var parts = [];
    if (e.conversation) { e.conversation.turns.forEach(function (t) { parts.push(t.content); }); }
    if (e.trajectory) {
      e.trajectory.steps.forEach(function (s) { parts.push(s.name); });
      parts.push(e.trajectory.final_answer || "");
    }
    return parts.join(" ");
  }

  function matches(e) {
    if (modelSelect.value !== "__all" && e.model !== modelSelect.value) { return false; }
    if (statusSelect.value === "failing" && e.n_fail === 0) { return false; }
    if (statusSelect.value === "errors" && e.n_error === 0 && e.n_skipped === 0) { return false; }
    var q = search.value.trim().toLowerCase();
    if (q) {
      var hay = [e.case_id, e.model, e.topic, e.query_type, e.question, e.answer, dialogueText(e)].join(" ").toLowerCase();
      if (hay.indexOf(q) < 0) { return false; }
    }
    return true;
  }

  function primarySummary(e) {
    return e.metrics.filter(function (m) { return m.primary; }).map(function (m) {
      return m.metric + " " + (m.status === "ok" ? num(m.value) : m.status);
    }).join("; ");
  }

  function render() {
    while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
    var rows = entries.filter(matches);
    rows.slice(0, shown).forEach(function (e) {
      var tr = el("tr", { "data-case": e.case_id, "data-model": e.model }, [
        el("td", { text: e.case_id }), el("td", { text: e.model || "(unnamed)" }),
        el("td", { text: e.topic || "" }), el("td", { text: e.query_type || "" }),
        el("td", { text: e.perturbation || "" }),
        el("td", { "class": "num", text: String(e.n_fail) }),
        el("td", { "class": "num", text: String(e.n_error + e.n_skipped) }),
        el("td", { text: primarySummary(e) })
      ]);
      tr.addEventListener("click", function () {
        Array.prototype.forEach.call(tbody.querySelectorAll("tr.selected"), function (r) { r.classList.remove("selected"); });
        tr.classList.add("selected");
        open(e);
      });
      tbody.appendChild(tr);
    });
    count.textContent = rows.length + " matching of " + entries.length + " shown in this report (" + data.total + " in the run)";
    more.style.display = rows.length > shown ? "inline-block" : "none";
  }

  // The answer with the least grounded sentence wrapped in <mark> (built from text nodes).
  function highlighted(text, sentence) {
    var block = el("div", { "class": "text-block answer" });
    if (!text) { block.appendChild(el("span", { "class": "muted", text: "(no answer)" })); return block; }
    var at = sentence ? text.indexOf(sentence) : -1;
    if (at < 0 && sentence && sentence.slice(-1) === "\u2026") {
      // Evaluators shorten long sentences with an ellipsis: match the shown prefix, then extend
      // the highlight to the end of that sentence.
      var prefix = sentence.slice(0, -1);
      at = text.indexOf(prefix);
      if (at >= 0) {
        var end = text.slice(at + prefix.length).search(/[.!?](\s|$)/);
        sentence = text.slice(at, end < 0 ? text.length : at + prefix.length + end + 1);
      }
    }
    if (at < 0) { block.textContent = text; return block; }
    block.appendChild(document.createTextNode(text.slice(0, at)));
    block.appendChild(el("mark", { "class": "least-grounded", title: "least grounded sentence", text: sentence }));
    block.appendChild(document.createTextNode(text.slice(at + sentence.length)));
    return block;
  }

  function leastGrounded(evidence) {
    for (var i = 0; i < evidence.length; i++) {
      var d = evidence[i].details;
      if (d && typeof d === "object") {
        var v = d.least_grounded_sentence !== undefined ? d.least_grounded_sentence : d.least_grounded;
        if (typeof v === "string") { return v; }
        if (v && typeof v === "object" && typeof (v.sentence || v.text) === "string") { return v.sentence || v.text; }
      }
    }
    return null;
  }

  var TEXT_KEYS = ["sentence", "text", "claim", "chunk"];
  var SCORE_KEYS = ["score", "similarity", "grounding", "groundedness", "entailment", "value", "probability", "max_sim"];
  function pick(obj, keys) {
    for (var i = 0; i < keys.length; i++) { if (obj[keys[i]] !== undefined) { return keys[i]; } }
    return null;
  }

  // Tables for lists of {sentence, score}-like objects found anywhere at the top of `details`.
  function sentenceTables(details) {
    var out = [];
    if (!details || typeof details !== "object") { return out; }
    Object.keys(details).forEach(function (key) {
      var list = details[key];
      if (!Array.isArray(list) || !list.length || typeof list[0] !== "object" || list[0] === null) { return; }
      var tk = pick(list[0], TEXT_KEYS), sk = pick(list[0], SCORE_KEYS);
      if (!tk || !sk) { return; }
      var table = el("table", { "class": "sentences" }, [el("thead", null, [el("tr", null, [
        el("th", { text: key }), el("th", { text: sk })])])]);
      var body = el("tbody");
      list.slice(0, 200).forEach(function (item) {
        var score = item[sk];
        var bar = el("span", { "class": "bar" });
        if (typeof score === "number") { bar.style.width = Math.max(0, Math.min(1, score)) * 80 + "px"; }
        body.appendChild(el("tr", null, [el("td", { text: String(item[tk]) }),
          el("td", { "class": "num" }, [bar, " " + num(score)])]));
      });
      table.appendChild(body);
      out.push(table);
    });
    return out;
  }

  // Conversations and trajectories: every text through textContent; long ones start collapsed.
  var OPEN_UP_TO = 10;
  var ROLES = { system: 1, user: 1, assistant: 1, tool: 1 };

  function gapNote(from, to, what) {
    var k = to - from + 1;
    return k + " " + what + (k === 1 ? "" : "s") + " not shown (" + (k === 1 ? what + " " + from : what + "s " + from + "\u2013" + to) + ")";
  }

  // Tool calls as a table; expected calls (outcomes false) have no result / error column.
  function toolTable(calls, numbered, outcomes) {
    outcomes = outcomes !== false;
    var head = (numbered ? ["step"] : []).concat(["tool", "arguments"]).concat(outcomes ? ["result / error"] : []);
    var table = el("table", { "class": "tool-calls" }, [el("thead", null, [el("tr", null, head.map(function (h) { return el("th", { text: h }); }))])]);
    var body = el("tbody");
    var previous = 0;
    calls.forEach(function (c) {
      if (numbered && c.n > previous + 1) {
        body.appendChild(el("tr", { "class": "gap" }, [el("td", { colspan: "4", text: gapNote(previous + 1, c.n - 1, "step") })]));
      }
      previous = c.n || previous;
      var outcome = c.error !== null && c.error !== undefined
        ? el("span", { "class": "tool-error", text: "error: " + c.error })
        : el("span", { text: c.result === null || c.result === undefined ? "" : String(c.result) });
      var cells = (numbered ? [el("td", { "class": "num", text: String(c.n) })] : []).concat([
        el("td", { text: c.name }), el("td", null, [el("code", { text: c.arguments || "" })])]).concat(outcomes ? [el("td", null, [outcome])] : []);
      body.appendChild(el("tr", c.flagged ? { "class": "flagged", title: "failed call not recovered from" } : null, cells));
    });
    table.appendChild(body);
    return table;
  }

  // A collapsible block of `total` turns or steps: its summary names the flagged ones and says
  // how many are not shown; open by default when short.
  function listBox(cls, title, noun, flaggedAs, items, total, omitted) {
    var flagged = items.filter(function (t) { return t.flagged; }).map(function (t) { return t.n; });
    var summary = title + ": " + total + " " + noun + "s" +
      (flagged.length ? ", " + flaggedAs + (flagged.length > 1 ? "s " : " ") + flagged.join(", ") : "") +
      (omitted ? "; " + omitted + " more " + noun + "s not shown" : "");
    var box = el("details", { "class": cls }, [el("summary", { text: summary })]);
    if (total <= OPEN_UP_TO) { box.open = true; }
    return box;
  }

  // "retrieved context (12 chunks, first 5 shown)"
  function counted(what, noun, total, shown) {
    return what + " (" + total + " " + noun + (total === 1 ? "" : "s") + (total > shown ? ", first " + shown + " shown" : "") + ")";
  }

  function conversationBlock(conv) {
    var box = listBox("conversation", "Conversation", "turn", "offending turn", conv.turns, conv.n_turns, conv.omitted);
    var previous = 0;
    conv.turns.forEach(function (t) {
      if (t.n > previous + 1) { box.appendChild(el("div", { "class": "gap", text: "\u2026 " + gapNote(previous + 1, t.n - 1, "turn") })); }
      previous = t.n;
      var role = ROLES[t.role] ? t.role : "other";
      var head = el("div", { "class": "turn-head" }, [el("strong", { text: "turn " + t.n + " \u00b7 " + t.role })]);
      t.verdicts.forEach(function (v) {
        head.appendChild(document.createTextNode(" "));
        var b = badge(v.passed, "ok");
        b.textContent = v.metric + (v.passed === false ? ": fail" : v.passed === true ? ": pass" : "");
        if (v.reason) { b.setAttribute("title", v.reason); }
        head.appendChild(b);
      });
      var turn = el("div", { "class": "turn role-" + role + (t.flagged ? " flagged" : ""), "data-turn": String(t.n) }, [head,
        el("div", { "class": "text-block turn-content", text: t.content })]);
      t.verdicts.forEach(function (v) {
        if (v.passed === false && v.reason) { turn.appendChild(el("div", { "class": "turn-verdict", text: v.metric + ": " + v.reason })); }
      });
      if (t.n_context) {
        var ctx = el("details", { "class": "turn-context" }, [el("summary", { text: counted("retrieved context", "chunk", t.n_context, t.context.length) })]);
        t.context.forEach(function (chunk, i) { ctx.appendChild(el("div", { "class": "text-block context", text: "[" + (i + 1) + "] " + chunk })); });
        turn.appendChild(ctx);
      }
      if (t.n_tool_calls) {
        var tools = el("details", { "class": "turn-tools" }, [el("summary", { text: counted("tool calls", "call", t.n_tool_calls, t.tool_calls.length) })]);
        tools.appendChild(toolTable(t.tool_calls, false));
        turn.appendChild(tools);
      }
      box.appendChild(turn);
    });
    if (conv.omitted && previous < conv.n_turns) { box.appendChild(el("div", { "class": "gap", text: "\u2026 " + gapNote(previous + 1, conv.n_turns, "turn") })); }
    return box;
  }

  function trajectoryBlock(traj) {
    var box = listBox("trajectory", "Trajectory", "step", "unrecovered failed step", traj.steps, traj.n_steps, traj.omitted);
    if (traj.steps.length) { box.appendChild(toolTable(traj.steps, true)); }
    var last = traj.steps.length ? traj.steps[traj.steps.length - 1].n : 0;
    if (last < traj.n_steps) { box.appendChild(el("div", { "class": "gap", text: "\u2026 " + gapNote(last + 1, traj.n_steps, "step") })); }
    box.appendChild(el("h4", { text: "Final answer" }));
    box.appendChild(el("div", { "class": "text-block final-answer", text: traj.final_answer || "(none)" }));
    if (traj.n_expected) {
      box.appendChild(el("h4", { text: counted("Expected tool calls", "call", traj.n_expected, traj.expected_tools.length) }));
      box.appendChild(toolTable(traj.expected_tools, false, false));
    }
    if (traj.min_steps !== null && traj.min_steps !== undefined) { box.appendChild(el("div", { "class": "muted", text: "minimal steps: " + traj.min_steps })); }
    return box;
  }

  function open(e) {
    while (detail.firstChild) { detail.removeChild(detail.firstChild); }
    var close = el("button", { type: "button", id: "case-close", text: "close" });
    close.addEventListener("click", function () { detail.classList.remove("open"); });
    detail.appendChild(el("div", null, [close, " ", el("strong", { text: "Case " + e.case_id }),
      " — model " + (e.model || "(unnamed)"),
      e.parent_id ? " — perturbation " + (e.perturbation || "?") + " of case " + e.parent_id : ""]));
    if (e.scenario) {
      detail.appendChild(el("h3", { text: "Scenario" }));
      detail.appendChild(el("div", { "class": "text-block scenario", text: e.scenario }));
    }
    if (e.expected_outcome) {
      detail.appendChild(el("h3", { text: "Expected outcome" }));
      detail.appendChild(el("div", { "class": "text-block expected-outcome", text: e.expected_outcome }));
    }
    if (e.conversation) { detail.appendChild(conversationBlock(e.conversation)); }
    if (e.trajectory) { detail.appendChild(trajectoryBlock(e.trajectory)); }
    // A conversation's question and answer are its last user and assistant turns, shown above.
    if (!e.conversation) {
      detail.appendChild(el("h3", { text: "Question" }));
      detail.appendChild(el("div", { "class": "text-block question", text: e.question || "(none)" }));
    }
    if (e.expected) {
      detail.appendChild(el("h3", { text: "Expected answer" }));
      detail.appendChild(el("div", { "class": "text-block expected", text: e.expected }));
    }
    var least = leastGrounded(e.evidence);
    if (!e.conversation || least) {
      detail.appendChild(el("h3", { text: (e.conversation ? "Last answer" : "Answer") + (least ? " (least grounded sentence highlighted)" : "") }));
      detail.appendChild(highlighted(e.answer, least));
    }
    if (e.context && e.context.length) {
      detail.appendChild(el("h3", { text: "Retrieved context (" + e.context.length + " chunks)" }));
      e.context.forEach(function (chunk, i) {
        var id = e.context_ids && e.context_ids[i] ? "[" + e.context_ids[i] + "] " : "[" + (i + 1) + "] ";
        detail.appendChild(el("div", { "class": "text-block context", text: id + chunk }));
      });
    }
    detail.appendChild(el("h3", { text: "Metrics" }));
    var mt = el("table", { "class": "metrics" }, [el("thead", null, [el("tr", null, ["evaluator", "metric", "value", "threshold", "verdict", "reason"].map(function (h) { return el("th", { text: h }); }))])]);
    var mb = el("tbody");
    function metricRow(m) {
      mb.appendChild(el("tr", null, [el("td", { text: m.evaluator }), el("td", { text: m.metric + (m.primary ? " *" : "") }),
        el("td", { "class": "num", text: num(m.value) }), el("td", { "class": "num", text: num(m.threshold) }),
        el("td", null, [badge(m.passed, m.status)]), el("td", { text: m.reason || "" })]));
    }
    // Metrics an evaluator skipped for one reason (e.g. the seven attack metrics of a case that is
    // not an attack) are one row, not seven rows of padding.
    var skippedGroups = {}, rowsInOrder = [];
    e.metrics.forEach(function (m) {
      if (m.status !== "skipped") { rowsInOrder.push([m]); return; }
      var key = m.evaluator + "\u0000" + (m.reason || "");
      if (!skippedGroups[key]) { skippedGroups[key] = []; rowsInOrder.push(skippedGroups[key]); }
      skippedGroups[key].push(m);
    });
    rowsInOrder.forEach(function (group) {
      if (group.length === 1) { metricRow(group[0]); return; }
      mb.appendChild(el("tr", { "class": "skipped-group" }, [el("td", { text: group[0].evaluator }),
        el("td", { text: group.length + " metrics: " + group.map(function (m) { return m.metric + (m.primary ? " *" : ""); }).join(", ") }),
        el("td", { "class": "num", text: "—" }), el("td", { "class": "num", text: "—" }),
        el("td", null, [badge(null, "skipped")]), el("td", { text: group[0].reason || "" })]));
    });
    mt.appendChild(mb);
    detail.appendChild(mt);
    if (e.evidence.length) {
      detail.appendChild(el("h3", { text: "Explanations and evidence" }));
      e.evidence.forEach(function (ev) {
        detail.appendChild(el("div", null, [el("strong", { text: ev.evaluator + " / " + ev.metric + ": " }), ev.explanation || ""]));
        sentenceTables(ev.details).forEach(function (t) { detail.appendChild(t); });
        if (ev.details !== null && ev.details !== undefined) {
          detail.appendChild(el("details", null, [el("summary", { text: "raw evidence (details)" }),
            el("pre", { "class": "details", text: JSON.stringify(ev.details, null, 2) })]));
        }
      });
    }
    detail.classList.add("open");
    detail.scrollIntoView({ block: "start" });
  }

  [modelSelect, statusSelect].forEach(function (c) { c.addEventListener("change", function () { shown = PAGE; render(); }); });
  search.addEventListener("input", function () { shown = PAGE; render(); });
  more.addEventListener("click", function () { shown += PAGE; render(); });
  render();
  document.body.setAttribute("data-drilldown", "ready");
})();

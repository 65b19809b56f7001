// Page-side half of the webview harness, injected before the bundle with addInitScript. It stands in
// for VS Code: a fake acquireVsCodeApi that hands posted messages to the host running in Node (the
// real TreeHub, through the `__arborToHost` binding) and keeps setState in sessionStorage (so a
// reload is a hide/show); the host's messages come back through `__arbor.deliver`, timed up to
// the frame that paints them. Plain JS on purpose: it runs in the page, not in Node.
(() => {
  const arbor = {
    posted: [],
    violations: [],
    /** One record per host message delivered: when it arrived, was handled, and was painted. */
    deliveries: [],
    lastClick: 0,
  };
  window.__arbor = arbor;
  const paints = new Map();
  let deliverySeq = 0;

  // A fresh load (the harness adds ?fresh) starts without the state an earlier load saved.
  if (new URLSearchParams(location.search).has("fresh")) sessionStorage.clear();
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem("arbor-state") || "null") ?? undefined;
  } catch {
    saved = undefined;
  }

  window.acquireVsCodeApi = () => ({
    postMessage(message) {
      const json = JSON.stringify(message);
      arbor.posted.push(JSON.parse(json));
      if (typeof window.__arborToHost === "function") void window.__arborToHost(json);
    },
    getState: () => saved,
    setState(state) {
      saved = JSON.parse(JSON.stringify(state));
      sessionStorage.setItem("arbor-state", JSON.stringify(saved));
    },
  });

  document.addEventListener("securitypolicyviolation", (e) => {
    arbor.violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample}`);
  });
  document.addEventListener("click", (e) => (arbor.lastClick = e.timeStamp), true);

  /** Resolves after the next frame has been painted: rAF runs before paint, a message task after it. */
  arbor.nextPaint = () =>
    new Promise((resolve) =>
      requestAnimationFrame(() => {
        const raf = performance.now();
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve({ raf, painted: performance.now() });
        channel.port2.postMessage(0);
      }),
    );

  /** The first slices of a message's JSON, carried in before the delivery (see webview-harness-host.ts). */
  const parts = [];
  arbor.receivePart = (part) => void parts.push(part);

  /**
   * Delivers a message the way VS Code does (a message event on window); returns the delivery id.
   * A string is the message as JSON, or its last slice (the host harness sends that): decoding it
   * is part of the delivery.
   */
  arbor.deliver = (message) => {
    const id = ++deliverySeq;
    const start = performance.now();
    if (typeof message === "string") {
      message = JSON.parse(parts.join("") + message);
      parts.length = 0;
    }
    window.dispatchEvent(new MessageEvent("message", { data: message }));
    const record = { id, type: message.type, start, handled: performance.now(), raf: 0, painted: 0, click: arbor.lastClick };
    arbor.deliveries.push(record);
    if (arbor.deliveries.length > 5000) arbor.deliveries.splice(0, 1000);
    paints.set(id, arbor.nextPaint().then((p) => {
      record.raf = p.raf;
      record.painted = p.painted;
      paints.delete(id);
      return record;
    }));
    return id;
  };

  /** The timing of a delivery once its frame is painted. */
  arbor.paintedOf = async (id) => {
    const pending = paints.get(id);
    if (pending) return { ...(await pending) };
    const record = arbor.deliveries.find((r) => r.id === id);
    return record ? { ...record } : null;
  };

  /** Delivers a message straight to the page (not through a host), timed to its handling. */
  arbor.send = (message) => {
    const start = performance.now();
    window.dispatchEvent(new MessageEvent("message", { data: message }));
    return { start, handled: performance.now() };
  };

  /**
   * Delivers a message as VS Code's postMessage does, a structured clone of it, timed from before
   * the clone to its handling (the hop between processes is not included).
   */
  arbor.post = (message) => {
    const start = performance.now();
    const data = structuredClone(message);
    window.dispatchEvent(new MessageEvent("message", { data }));
    return { start, handled: performance.now() };
  };

  /** `post`, then the frame that shows it: the clone, the handler and the paint in one timing. */
  arbor.postAndPaint = async (message) => {
    const sent = arbor.post(message);
    const p = await arbor.nextPaint();
    return { start: sent.start, handled: sent.handled, raf: p.raf, painted: p.painted };
  };

  /** Delivers a message straight to the page (not through the host) and waits for the frame that shows it. */
  arbor.sendAndPaint = async (message) => arbor.paintedOf(arbor.deliver(message));

  /** The drawn rows, top to bottom, as plain data (placeholders left out). */
  arbor.rows = () =>
    Array.from(document.querySelectorAll(".tree .row"))
      .filter((r) => !r.hidden && !r.classList.contains("placeholder"))
      .map((r) => {
        const ctx = JSON.parse(r.dataset.vscodeContext || "{}");
        return {
          id: ctx.entryId,
          index: Number(r.dataset.index),
          role: r.getAttribute("role"),
          level: r.getAttribute("aria-level"),
          posinset: r.getAttribute("aria-posinset"),
          setsize: r.getAttribute("aria-setsize"),
          selected: r.getAttribute("aria-selected"),
          expanded: r.getAttribute("aria-expanded"),
          current: r.getAttribute("aria-current"),
          label: r.getAttribute("aria-label"),
          domId: r.id,
          classes: r.className,
          text: r.querySelector(".text")?.textContent ?? "",
          context: ctx,
        };
      })
      .sort((a, b) => a.index - b.index);

  /** Centre of a drawn row's text, for mouse clicks. */
  arbor.rowPoint = (id) => {
    const row = Array.from(document.querySelectorAll(".tree .row")).find(
      (r) => !r.hidden && JSON.parse(r.dataset.vscodeContext || "{}").entryId === id,
    );
    if (!row) return null;
    const box = row.querySelector(".text").getBoundingClientRect();
    return { x: box.left + Math.min(20, box.width / 2), y: box.top + Math.min(9, box.height / 2) };
  };

  /**
   * Scrolls the tree to each position, one per animation frame, and reports frame intervals, the
   * main-thread cost of each scroll event (from a capturing listener on the document, which runs
   * first, to a listener on the tree added after the list's own), long tasks (> 50 ms), and how
   * many frames showed rows the host had not sent yet.
   */
  arbor.scrollBench = async (positions) => {
    const tree = document.querySelector(".tree");
    const longTasks = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    observer.observe({ entryTypes: ["longtask"] });
    const scrollCosts = [];
    let began = 0;
    const onCapture = () => (began = performance.now());
    const onScroll = () => scrollCosts.push(performance.now() - began);
    document.addEventListener("scroll", onCapture, true);
    tree.addEventListener("scroll", onScroll);
    const frames = [];
    let blankFrames = 0;
    /** For each frame with rows not sent yet, the index of the position it showed. */
    const blankAt = [];
    let last = performance.now();
    for (let i = 0; i < positions.length; i++) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const now = performance.now();
      frames.push(now - last);
      last = now;
      if (tree.querySelector(".row.placeholder:not([hidden])")) {
        blankFrames++;
        blankAt.push(i - 1);
      }
      tree.scrollTop = positions[i];
    }
    await arbor.nextPaint();
    await new Promise((resolve) => setTimeout(resolve, 200));
    tree.removeEventListener("scroll", onScroll);
    document.removeEventListener("scroll", onCapture, true);
    observer.disconnect();
    const drawn = document.querySelectorAll(".tree .row:not([hidden])").length;
    return { frames: frames.slice(1), scrollCosts, longTasks, drawn, blankFrames, blankAt, scrollHeight: tree.scrollHeight };
  };

  /** Time to structured-clone a message: what VS Code's postMessage costs before our handler runs. */
  arbor.cloneCost = (message) => {
    const start = performance.now();
    structuredClone(message);
    return performance.now() - start;
  };

  /** Theme variables as VS Code sets them on <html>, plus the body class the toolkit watches. */
  arbor.applyTheme = (kind, vars) => {
    for (const [name, value] of Object.entries(vars)) document.documentElement.style.setProperty(name, value);
    document.body.classList.remove("vscode-light", "vscode-dark");
    document.body.classList.add(`vscode-${kind}`);
    document.body.setAttribute("data-vscode-theme-kind", `vscode-${kind}`);
  };
})();

// Page-side half of the webview harness, injected before the bundle with addInitScript. It stands in
// for VS Code: a fake acquireVsCodeApi that records posted messages and keeps setState in
// sessionStorage (so a reload is a hide/show), a fake host that answers checkouts the way Arbor's
// host does, and timing helpers. Plain JS on purpose: it runs in the page, not in Node.
(() => {
  const arbor = {
    posted: [],
    violations: [],
    checkoutTimings: [],
    lastClick: 0,
    entries: [],
    sessionId: null,
    hostDelayMs: 0,
    autoCheckout: true,
  };
  window.__arbor = arbor;

  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem("arbor-state") || "null") ?? undefined;
  } catch {
    saved = undefined;
  }

  window.acquireVsCodeApi = () => ({
    postMessage(message) {
      const copy = JSON.parse(JSON.stringify(message));
      arbor.posted.push(copy);
      if (copy.type === "checkout" && arbor.autoCheckout) arbor.answerCheckout(copy);
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

  /** Delivers a host message the way VS Code does (a message event on window), timed. */
  arbor.send = (message) => {
    // Keep references only (no index): the fake host must not weigh on the page's heap.
    if (message.type === "state" && message.session) {
      arbor.sessionId = message.session.sessionId;
      arbor.entries = [message.session.entries];
    } else if (message.type === "entriesAppended") {
      arbor.entries.push(message.entries);
    }
    const start = performance.now();
    window.dispatchEvent(new MessageEvent("message", { data: message }));
    return { start, handled: performance.now() };
  };

  /** Sends a message and waits for the frame that shows it. */
  arbor.sendAndPaint = async (message) => {
    const t = arbor.send(message);
    const p = await arbor.nextPaint();
    return { start: t.start, handled: t.handled, raf: p.raf, painted: p.painted };
  };

  /** The host's checkout: a user message (or custom message) puts the leaf on its parent. */
  arbor.answerCheckout = (message) => {
    let entry;
    for (let i = arbor.entries.length - 1; i >= 0 && !entry; i--) entry = arbor.entries[i].find((e) => e.id === message.id);
    if (!entry) return;
    const toParent = (entry.type === "message" && entry.role === "user") || entry.type === "custom_message";
    const leafId = toParent ? entry.parentId : entry.id;
    const click = arbor.lastClick;
    setTimeout(async () => {
      const t = await arbor.sendAndPaint({ type: "leafMoved", sessionId: arbor.sessionId, leafId });
      arbor.checkoutTimings.push({ click, ...t, leafId });
    }, arbor.hostDelayMs);
  };

  /** The drawn rows, top to bottom, as plain data. */
  arbor.rows = () =>
    Array.from(document.querySelectorAll(".tree .row"))
      .filter((r) => !r.hidden)
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

  /** Centre of a drawn row, for mouse clicks; scrolls it into view first. */
  arbor.rowPoint = (id) => {
    const row = Array.from(document.querySelectorAll(".tree .row")).find(
      (r) => !r.hidden && JSON.parse(r.dataset.vscodeContext || "{}").entryId === id,
    );
    if (!row) return null;
    const box = row.querySelector(".text").getBoundingClientRect();
    return { x: box.left + Math.min(20, box.width / 2), y: box.top + box.height / 2 };
  };

  /**
   * Scrolls the tree to each position, one per animation frame, and reports frame intervals, the
   * main-thread cost of each scroll event (from a capturing listener on the document, which runs
   * first, to a listener on the tree added after the list's own) and long tasks (> 50 ms).
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
    let last = performance.now();
    for (const top of positions) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const now = performance.now();
      frames.push(now - last);
      last = now;
      tree.scrollTop = top;
    }
    await arbor.nextPaint();
    await new Promise((resolve) => setTimeout(resolve, 200));
    tree.removeEventListener("scroll", onScroll);
    document.removeEventListener("scroll", onCapture, true);
    observer.disconnect();
    const drawn = document.querySelectorAll(".tree .row:not([hidden])").length;
    return { frames: frames.slice(1), scrollCosts, longTasks, drawn, rowHeight: 22, scrollHeight: tree.scrollHeight };
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

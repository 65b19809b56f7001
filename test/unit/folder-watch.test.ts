/** The Sessions view follows its folder: files that appear, change or go away (also before the folder exists). */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { watchFolder } from "../../src/core/util/folder-watch";
import { makeTempDir, waitFor } from "../support/temp-dir";

describe("watchFolder", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("reports new, grown and deleted session files, debounced", async () => {
    let calls = 0;
    const w = watchFolder(tmp.dir, () => calls++, { debounceMs: 50, pollMs: 200 });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const file = join(tmp.dir, "a.jsonl");
      writeFileSync(file, "{}\n");
      await waitFor(() => calls >= 1, "a new file");
      const afterCreate = calls;
      for (let i = 0; i < 5; i++) appendFileSync(file, "{}\n");
      await waitFor(() => calls > afterCreate, "a grown file");
      const afterGrow = calls;
      rmSync(file);
      await waitFor(() => calls > afterGrow, "a deleted file");
    } finally {
      w.dispose();
    }
  });

  it("keeps reporting while a file is appended to without pause (a debounce would wait for the end)", async () => {
    let calls = 0;
    const w = watchFolder(tmp.dir, () => calls++, { debounceMs: 1000, pollMs: 60_000 });
    const file = join(tmp.dir, "busy.jsonl");
    writeFileSync(file, "{}\n");
    const writer = setInterval(() => appendFileSync(file, "{}\n"), 10);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const before = calls;
      // The writer never stops before this holds: each report came while it kept appending.
      await waitFor(() => calls >= before + 3, "reports during the appends", 20_000);
    } finally {
      clearInterval(writer);
      w.dispose();
    }
  });

  it("starts following a folder that does not exist yet", async () => {
    const dir = join(tmp.dir, "later");
    let calls = 0;
    const w = watchFolder(dir, () => calls++, { debounceMs: 50, pollMs: 100 });
    try {
      await new Promise((r) => setTimeout(r, 250));
      mkdirSync(dir);
      await new Promise((r) => setTimeout(r, 250));
      writeFileSync(join(dir, "s.jsonl"), "{}\n");
      await waitFor(() => calls >= 1, "a file in the new folder");
    } finally {
      w.dispose();
    }
  });
});

/** Delete in the Sessions view moves the file to the OS trash (freedesktop.org layout on Linux), restorable. */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { platform } from "node:os";
import { join } from "node:path";
import { moveToTrash } from "../../src/core/util/trash";
import { makeTempDir } from "../support/temp-dir";

describe("moveToTrash", function () {
  let tmp: ReturnType<typeof makeTempDir>;
  before(function () {
    if (platform() !== "linux") this.skip();
  });
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("moves the file into Trash/files with a .trashinfo that says where it came from, without overwriting", async () => {
    const env = { XDG_DATA_HOME: join(tmp.dir, "data") };
    const file = join(tmp.dir, "2026-01-01T00-00-00-000Z_abc.jsonl");
    for (const content of ["first\n", "second\n"]) {
      writeFileSync(file, content);
      const trashed = await moveToTrash(file, env);
      assert.equal(existsSync(file), false);
      assert.equal(readFileSync(trashed, "utf8"), content, "nothing is lost");
      const info = readFileSync(join(tmp.dir, "data", "Trash", "info", `${trashed.split("/").pop()}.trashinfo`), "utf8");
      assert.match(info, /^\[Trash Info\]\nPath=.*_abc\.jsonl\nDeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n$/);
    }
  });

  it("leaves the file where it was when it cannot be moved", async () => {
    const env = { XDG_DATA_HOME: join(tmp.dir, "data") };
    await assert.rejects(moveToTrash(join(tmp.dir, "missing.jsonl"), env));
    assert.equal(existsSync(join(tmp.dir, "data", "Trash", "info", "missing.jsonl.trashinfo")), false, "no stray info file");
  });
});

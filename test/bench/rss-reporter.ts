/**
 * Preloaded (`node --require`) into a process the bench times as a whole (the CLI, the
 * reference's open + getTree): at exit it writes the process's peak RSS to $ARBOR_BENCH_RSS.
 */
import { writeFileSync } from "node:fs";

const target = process.env.ARBOR_BENCH_RSS;
if (target) {
  process.on("exit", () => {
    writeFileSync(target, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
  });
}

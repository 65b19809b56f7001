/**
 * The entry of the Restricted Mode suite: the same runner as the main suite, on this folder's tests,
 * in a window whose workspace is not trusted and ships hostile `.vscode/settings.json` values
 * (scripts/run-host-tests.mjs starts it after the main suite).
 */
import { runTestsIn } from "../suite/index";

export function run(): Promise<void> {
  return runTestsIn(__dirname);
}

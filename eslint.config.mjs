// Layer rules: the core runs under plain Node (CLI, mocha) and must never reach VS Code or the DOM.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["out/**", "dist/**", "node_modules/**", "test/vscode/**", "**/*.js", "**/*.mjs"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/core/**/*.ts", "src/cli/**/*.ts", "src/protocol/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [{ name: "vscode", message: "The core, the CLI and the protocol never import vscode: put VS Code code in src/extension/." }],
        patterns: [{ group: ["**/extension/**", "**/webview/**"], message: "Lower layers never import the VS Code layer or the webview." }],
      }],
    },
  },
  {
    files: ["src/protocol/**/*.ts", "src/core/tree/**/*.ts", "src/core/export/page-*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [{ name: "vscode", message: "The protocol is shared with the webview: no vscode." }],
        patterns: [{ group: ["node:*", "fs", "path", "os", "child_process"], message: "Shared with the webview: no Node modules." }],
      }],
    },
  },
);

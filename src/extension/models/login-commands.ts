import * as vscode from "vscode";
import type { OAuthLoginCallbacks, OAuthProviderInterface } from "../../core/models/oauth-logins";
import { registerCommandSet } from "../register-commands";
import type { ModelService } from "./model-service";

/** The login commands; package.json contributes exactly these. */
export const LOGIN_COMMAND_IDS = ["arbor.logIn", "arbor.logOut"] as const;

/** What the flow needs from VS Code, replaceable in tests (the browser, the clipboard). */
export interface LoginUi {
  openExternal(url: string): Thenable<boolean>;
  asExternalUri(uri: vscode.Uri): Thenable<vscode.Uri>;
}

const defaultUi: LoginUi = {
  // A string keeps the provider's URL byte for byte (a Uri would re-encode its query).
  openExternal: (url) => vscode.env.openExternal(url as unknown as vscode.Uri),
  asExternalUri: (uri) => vscode.env.asExternalUri(uri),
};

/** The local callback address a provider's authorize URL names (`redirect_uri=http://localhost:PORT/...`). */
export function callbackOrigin(url: string): string | undefined {
  try {
    const redirect = new URL(new URL(url).searchParams.get("redirect_uri") ?? "");
    if (redirect.protocol !== "http:" || !["localhost", "127.0.0.1"].includes(redirect.hostname)) return undefined;
    return `${redirect.protocol}//${redirect.host}`;
  } catch {
    return undefined;
  }
}

/** An input box that can be closed from outside (when the browser's callback came first). */
function ask(options: { title: string; prompt: string; placeholder?: string; allowEmpty?: boolean; signal: AbortSignal; onClose: (close: () => void) => void }): Promise<string> {
  return new Promise((resolve, reject) => {
    const box = vscode.window.createInputBox();
    box.title = options.title;
    box.prompt = options.prompt;
    box.placeholder = options.placeholder;
    box.ignoreFocusOut = true;
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
      box.dispose();
    };
    box.onDidAccept(() => {
      const value = box.value.trim();
      if (!value && !options.allowEmpty) {
        box.validationMessage = vscode.l10n.t("Paste the code or the URL the browser ended on.");
        return;
      }
      finish(() => resolve(value));
    });
    box.onDidHide(() => finish(() => reject(new Error("Login cancelled"))));
    options.signal.addEventListener("abort", () => finish(() => reject(new Error("Login cancelled"))), { once: true });
    options.onClose(() => finish(() => reject(new Error("Login cancelled"))));
    box.show();
  });
}

/**
 * Runs one provider's login, as pi-ai's helper drives it: the browser opens on the provider's page
 * (its local callback reached through VS Code's port forwarding in a remote window), a box takes a
 * pasted code or redirect URL where the browser runs elsewhere, the device-code flow shows its code,
 * and a notification shows the progress with Cancel.
 */
export async function runLogin(models: ModelService, provider: OAuthProviderInterface, ui: LoginUi = defaultUi): Promise<boolean> {
  const title = vscode.l10n.t("Log in to {0}", provider.name);
  const closers: (() => void)[] = [];
  try {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      const callbacks: OAuthLoginCallbacks = {
        signal: controller.signal,
        onAuth: (info) => {
          void (async () => {
            const origin = callbackOrigin(info.url);
            // In a remote or web window the browser reaches the host's callback through a forwarded port.
            if (origin) await Promise.resolve(ui.asExternalUri(vscode.Uri.parse(origin))).catch(() => undefined);
            const opened = await Promise.resolve(ui.openExternal(info.url)).catch(() => false);
            progress.report({ message: info.instructions ?? vscode.l10n.t("Finish in the browser.") });
            const copy = vscode.l10n.t("Copy Link");
            const code = /code:\s*(\S+)/i.exec(info.instructions ?? "")?.[1];
            const copyCode = vscode.l10n.t("Copy Code");
            const text = [opened ? vscode.l10n.t("{0}: the browser opened the login page.", provider.name) : vscode.l10n.t("{0}: open the login page in a browser.", provider.name), info.instructions ?? ""].filter(Boolean).join(" ");
            const choice = await vscode.window.showInformationMessage(text, ...(code ? [copyCode] : []), copy);
            if (choice === copy) await vscode.env.clipboard.writeText(info.url);
            if (choice === copyCode && code) await vscode.env.clipboard.writeText(code);
          })();
        },
        onPrompt: (prompt) => ask({ title, prompt: prompt.message, placeholder: prompt.placeholder, allowEmpty: prompt.allowEmpty, signal: controller.signal, onClose: (c) => closers.push(c) }),
        onProgress: (message) => progress.report({ message }),
        onSelect: async (prompt) => {
          const pick = await vscode.window.showQuickPick(
            prompt.options.map((o) => ({ label: o.label, id: o.id })),
            { title, placeHolder: prompt.message, ignoreFocusOut: true },
          );
          return pick?.id;
        },
      };
      if (provider.usesCallbackServer) {
        callbacks.onManualCodeInput = () =>
          ask({
            title,
            prompt: vscode.l10n.t("If the browser runs on another machine, paste the code or the URL it ended on here. Otherwise finish in the browser."),
            signal: controller.signal,
            onClose: (c) => closers.push(c),
          });
      }
      await models.credentials.logins.login(provider.id, callbacks);
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/cancel/i.test(message)) return false;
    void vscode.window.showErrorMessage(vscode.l10n.t("Could not log in to {0}: {1}", provider.name, message));
    return false;
  } finally {
    for (const close of closers) close();
  }
  void vscode.window.showInformationMessage(vscode.l10n.t("Logged in to {0}. Its models are in Select Model.", provider.name));
  return true;
}

/** Registers Log In... and Log Out.... */
export function registerLoginCommands(models: ModelService, log: vscode.LogOutputChannel, ui: LoginUi = defaultUi): vscode.Disposable[] {
  const logins = models.credentials.logins;
  const handlers: Record<(typeof LOGIN_COMMAND_IDS)[number], (...args: unknown[]) => unknown> = {
    "arbor.logIn": async (id?: unknown) => {
      await models.ready;
      const providers = await logins.providers();
      let provider = typeof id === "string" ? providers.find((p) => p.id === id) : undefined;
      if (!provider) {
        const pick = await vscode.window.showQuickPick(
          providers.map((p) => ({ label: p.name, description: logins.has(p.id) ? vscode.l10n.t("logged in") : undefined, provider: p })),
          { title: vscode.l10n.t("Log In"), placeHolder: vscode.l10n.t("Sign in with a subscription (the login is kept in VS Code's secret storage)") },
        );
        provider = pick?.provider;
      }
      if (!provider) return false;
      return runLogin(models, provider, ui);
    },
    "arbor.logOut": async (id?: unknown) => {
      await models.ready;
      const providers = await logins.providers();
      const name = (pid: string): string => providers.find((p) => p.id === pid)?.name ?? pid;
      const current = logins.loggedIn();
      if (current.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t("Arbor holds no subscription login."));
        return false;
      }
      let target = typeof id === "string" && current.includes(id) ? id : undefined;
      if (!target) {
        const pick = await vscode.window.showQuickPick(
          current.map((pid) => ({ label: name(pid), id: pid })),
          { title: vscode.l10n.t("Log Out"), placeHolder: vscode.l10n.t("The login to remove from VS Code's secret storage") },
        );
        target = pick?.id;
      }
      if (!target) return false;
      await logins.logout(target);
      void vscode.window.showInformationMessage(vscode.l10n.t("Logged out of {0}.", name(target)));
      return true;
    },
  };
  return registerCommandSet(LOGIN_COMMAND_IDS, handlers, log);
}

import * as vscode from "vscode";
import type { InsecureSend } from "../../core/models/pi-ai-provider";

const ALLOWED_ORIGINS_KEY = "arbor.plainHttpKeyOrigins";

/**
 * Asks before an API key goes over plain `http://` to another machine, naming the provider and the
 * host; "Always for This Host" is remembered (the origin only) in globalState. Concurrent calls to
 * the same origin share one question.
 */
export class InsecureSendGuard {
  private readonly pending = new Map<string, Promise<boolean>>();

  constructor(private readonly state: vscode.Memento) {}

  confirm = (send: InsecureSend): Promise<boolean> => {
    if (this.allowedOrigins().includes(send.origin)) return Promise.resolve(true);
    let answer = this.pending.get(send.origin);
    if (!answer) {
      answer = this.ask(send).finally(() => this.pending.delete(send.origin));
      this.pending.set(send.origin, answer);
    }
    return answer;
  };

  /** Forgets every "Always for This Host". */
  async reset(): Promise<void> {
    await this.state.update(ALLOWED_ORIGINS_KEY, []);
  }

  private allowedOrigins(): string[] {
    return this.state.get<string[]>(ALLOWED_ORIGINS_KEY, []);
  }

  private async ask(send: InsecureSend): Promise<boolean> {
    const once = vscode.l10n.t("Send Once");
    const always = vscode.l10n.t("Always for This Host");
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t("Send the API key of \"{0}\" unencrypted to {1}?", send.provider, send.origin),
      {
        modal: true,
        detail: vscode.l10n.t("The model endpoint uses plain http and is not on this machine, so anyone on the network path can read the key. Use https where you can. Cancel sends nothing."),
      },
      once,
      always,
    );
    if (choice === always) await this.state.update(ALLOWED_ORIGINS_KEY, [...new Set([...this.allowedOrigins(), send.origin])]);
    return choice === once || choice === always;
  }
}

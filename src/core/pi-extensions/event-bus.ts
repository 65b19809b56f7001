/** `pi.events`: a bus the extensions of one window share to talk to each other (Pi's event bus). */
export interface EventBus {
  on(channel: string, handler: (data: unknown) => void): () => void;
  emit(channel: string, data: unknown): void;
}

export function createEventBus(report: (error: unknown) => void): EventBus {
  const listeners = new Map<string, Set<(data: unknown) => void>>();
  return {
    on(channel, handler) {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(handler);
      return () => void set.delete(handler);
    },
    emit(channel, data) {
      for (const handler of [...(listeners.get(channel) ?? [])]) {
        try {
          handler(data);
        } catch (error) {
          report(error);
        }
      }
    },
  };
}

/**
 * Why a user's topic is needed on this node: the user has signed-in sockets here (the server reports the first in
 * and the last out), or sockets present as them in presence channels (counted one by one; terminating a user
 * closes those too).
 */
export interface UserInterest {
  /** Records whether the node holds signed-in sockets of the user; answers whether the topic is still needed. */
  signedIn(topic: string, holds: boolean): boolean;
  /** Records one more (+1) or one fewer (-1) present socket; answers whether the topic is still needed. */
  present(topic: string, delta: 1 | -1): boolean;
}

export function createUserInterest(): UserInterest {
  const signedIn = new Set<string>();
  const present = new Map<string, number>();
  const needed = (topic: string) => signedIn.has(topic) || present.has(topic);
  return {
    signedIn(topic, holds) {
      if (holds) signedIn.add(topic);
      else signedIn.delete(topic);
      return needed(topic);
    },
    present(topic, delta) {
      const count = (present.get(topic) ?? 0) + delta;
      if (count > 0) present.set(topic, count);
      else present.delete(topic);
      return needed(topic);
    },
  };
}

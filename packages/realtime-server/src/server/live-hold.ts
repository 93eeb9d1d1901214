// A subscription of an app with history on joins its channel's transport topic only once its confirmation (and any
// replay) went out. Until then, the frames this node delivers to the channel are held for the socket; after the
// replay, only held frames with a serial above the last one replayed follow it. With a store that answers at once
// (memory, no cluster wait) this all happens in the subscribe's own turn and nothing is held.
//
// A shared store (Redis) answers later, and a frame with a serial the replay already held can still be on its way to
// this node (appended before the read, fanned out after it), so after the replay the socket stays off the topic,
// skipping frames up to the replayed serial, until a frame past it arrives: for one publisher, frames reach a node in
// serial order, so none at or below it can follow. A channel that goes quiet joins after `LATE_FRAMES_MS` anyway.

import { RecoveryField } from '@herald/protocol-core';
import { send, topicOf } from './send.js';
import { hasChannel } from './socket-channels.js';
import type { AppState, LiveHold, Socket } from './state.js';

/** How long a socket waits, after its replay, for a frame past it before it joins the topic regardless. */
export const LATE_FRAMES_MS = 5_000;

const SERIAL_FIELD = `,"${RecoveryField.Serial}":`;

/** The serial a channel frame carries (its position fields end the frame), or undefined. */
export function serialOf(frame: string): number | undefined {
  const at = frame.lastIndexOf(SERIAL_FIELD);
  if (at < 0) return undefined;
  const serial = Number.parseInt(frame.slice(at + SERIAL_FIELD.length), 10);
  return Number.isNaN(serial) ? undefined : serial;
}

/** Starts holding the channel's frames for a socket that subscribed and is not confirmed yet. */
export function holdLive(app: AppState, ws: Socket, channel: string): LiveHold {
  const hold: LiveHold = { ws, channel, held: [], floor: -1, active: true, timer: undefined };
  app.holds ??= new Map();
  const holds = app.holds.get(channel);
  if (holds) holds.add(hold);
  else app.holds.set(channel, new Set([hold]));
  return hold;
}

/**
 * Hands a frame delivered to the channel on this node to the sockets held off its topic (`skip` excluded); call it
 * right before the frame is published to the topic.
 */
export function passHeld(app: AppState, channel: string, frame: string, skip: Socket | undefined): void {
  const holds = app.holds?.get(channel);
  if (!holds) return;
  for (const hold of holds) {
    if (hold.ws === skip) continue;
    if (hold.floor < 0) {
      hold.held.push(frame);
      continue;
    }
    const serial = serialOf(frame);
    if (serial === undefined) send(hold.ws, app, frame);
    // The first frame past the replay: the socket joins the topic, and the caller's publish that follows brings it.
    else if (serial > hold.floor) join(app, hold);
  }
}

/**
 * Called right after the confirmation and replay were sent: sends the held frames past `floor` (every one for -1),
 * then joins the topic, at once when `settled` (nothing older can still come) or once a frame past `floor` came.
 */
export function releaseHold(app: AppState, hold: LiveHold, floor: number, settled: boolean): void {
  if (!hold.active) return;
  let past = false;
  for (const frame of hold.held) {
    const serial = serialOf(frame);
    if (serial !== undefined && serial <= floor) continue;
    send(hold.ws, app, frame);
    if (serial !== undefined) past = true;
  }
  hold.held.length = 0;
  if (settled || past || floor < 0) {
    join(app, hold);
    return;
  }
  hold.floor = floor;
  hold.timer = setTimeout(() => join(app, hold), LATE_FRAMES_MS);
  hold.timer.unref?.();
}

/** Stops holding for a socket that leaves the channel. */
export function dropHold(app: AppState, ws: Socket, channel: string): void {
  const holds = app.holds?.get(channel);
  if (!holds) return;
  for (const hold of holds) if (hold.ws === ws) forget(app, hold);
}

function join(app: AppState, hold: LiveHold): void {
  if (!hold.active) return;
  forget(app, hold);
  const data = hold.ws.getUserData();
  if (data.open && hasChannel(data.channels, hold.channel)) hold.ws.subscribe(topicOf(app, hold.channel));
}

function forget(app: AppState, hold: LiveHold): void {
  hold.active = false;
  clearTimeout(hold.timer);
  const holds = app.holds?.get(hold.channel);
  if (!holds) return;
  holds.delete(hold);
  if (holds.size > 0) return;
  app.holds?.delete(hold.channel);
  // Back to undefined: the fan-out's only check for holds is this one field.
  if (app.holds?.size === 0) app.holds = undefined;
}

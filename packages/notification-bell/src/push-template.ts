/** The "Turn on browser notifications" control's markup (component `notificationPush`), at the foot of the panel. */
export const PUSH_CONTROL_TEMPLATE = `<div class="herald-bell__push" x-data="notificationPush" x-show="visible">
  <button type="button" class="herald-bell__push-button" x-show="state !== 'on'" :disabled="state === 'working'"
    @click="enable()" x-text="labels.pushEnable"></button>
  <span class="herald-bell__push-on" role="status" x-show="state === 'on'" x-text="labels.pushOn"></span>
  <span class="herald-bell__push-error" role="alert" x-show="state === 'failed'" x-text="error"></span>
</div>`;

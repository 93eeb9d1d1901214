/**
 * The browser notifications control's markup (component `notificationPush`), at the foot of the panel: turn on,
 * turn off, and the user's devices with a remove button each.
 */
export const PUSH_CONTROL_TEMPLATE = `<div class="herald-bell__push" x-data="notificationPush" x-show="visible">
  <button type="button" class="herald-bell__push-button" x-show="state !== 'on'" :disabled="state === 'working'"
    @click="enable()" x-text="labels.pushEnable"></button>
  <span class="herald-bell__push-on" role="status" x-show="state === 'on'" x-text="labels.pushOn"></span>
  <button type="button" class="herald-bell__push-off" x-show="state === 'on'"
    @click="disable()" x-text="labels.pushDisable"></button>
  <button type="button" class="herald-bell__push-devices-toggle" :aria-expanded="devicesOpen ? 'true' : 'false'"
    @click="toggleDevices()" x-text="labels.pushDevices"></button>
  <ul class="herald-bell__push-devices" x-show="devicesOpen" :aria-label="labels.pushDevices">
    <template x-for="device in devices" :key="device.endpoint">
      <li class="herald-bell__push-device">
        <span class="herald-bell__push-device-name"><span x-text="device.name"></span><span
          class="herald-bell__push-this" x-text="device.current ? ' (' + labels.pushThisDevice + ')' : ''"></span></span>
        <button type="button" class="herald-bell__push-remove" @click="remove(device)"
          :aria-label="labels.pushRemoveDevice.replace('{device}', device.name)" x-text="labels.pushRemove"></button>
      </li>
    </template>
    <li class="herald-bell__push-none" x-show="devices.length === 0" x-text="labels.pushNoDevices"></li>
  </ul>
  <span class="herald-bell__push-error" role="alert" x-show="error !== ''" x-text="error"></span>
</div>`;

// The settings feature as other folders see it: they import from here, never its files.
export { SettingsPage } from './settings.js';

// The access feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// The sign-in settings (admin, on the Settings page) load on demand.
export const SignInSettings = lazy(() => import('./access-settings.js'));
export { SignInPage } from './sign-in.js';
export { signInApi } from './api.js';

// Vite's entry for the ES module. The stylesheet is imported here, not in src/, so that the emitted declarations
// import no .css file (TypeScript consumers cannot resolve one). The standalone build (src/standalone.ts) imports
// none either: this build has already written dist/notification-bell.css, which both share.
import '../src/styles.css';

export * from '../src/index.js';

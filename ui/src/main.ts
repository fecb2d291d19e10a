// Entry point of the dashboard bundle (built by scripts/build-ui.js, served at /ui).
import { html } from 'htm/preact';
import { render } from 'preact';
import { App } from './app.ts';
import './styles.css';

const root = document.getElementById('app');
if (root) render(html`<${App} />`, root);

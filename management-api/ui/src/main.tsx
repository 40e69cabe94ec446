// Entry of the dashboard bundle: the stylesheet and the app mounted into #app.
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);

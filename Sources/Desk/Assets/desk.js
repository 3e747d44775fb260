// The desk's page: renders the server's state (server-sent events) and results, sends what the
// person does. Text from the chip or a dump is only ever set as text, never as markup.
import { checkDigit, documentNumberField, isDate } from '/assets/mrz.js';
import { renderResult, clearResult } from '/assets/result.js';
import { renderHolder, clearHolder, wireHolder } from '/assets/holder.js';
import { $, element, post, openCamera, closeCamera, cameraFrame } from '/assets/page.js';

let state = null;
let shownResult = null;
let pendingReading = null;   // an MRZ read by the camera or a photo, waiting for confirmation
let camera = null;           // { stream, running }

// --- state from the server -------------------------------------------------------------------

function connect() {
  const events = new EventSource('/api/events');
  events.addEventListener('state', (event) => {
    $('connection').hidden = true;
    render(JSON.parse(event.data));
  });
  events.onerror = () => {
    $('connection').hidden = false;
    $('connection').textContent = 'The desk server does not answer; it may have been stopped. Reload the page once it runs again.';
  };
}

function render(next) {
  state = next;
  renderReaders(next);
  renderKey(next);
  renderReading(next.reading);
  renderHistory(next.results);
  $('keep-reading').checked = next.keep_reading;
  $('idle-minutes').textContent = String(Math.round(next.idle_clear_seconds / 60));
  const newest = next.results[0];
  if (!newest) {
    if (shownResult !== null) { shownResult = null; clearResult(); clearHolder(); }
  } else if (shownResult === null || !next.results.some((r) => r.id === shownResult) || (newest.id > shownResult && !browsingHistory)) {
    showResult(newest.id);
  }
  if (camera && next.keep_reading && next.key === null && !camera.running) scanFrames();
}

const readerWords = {
  no_card: 'no card', card_present: 'card present', reading: 'reading…', read: 'read: remove the document',
  failed: 'not read: give another key, or remove the document', removed: 'removed',
};

function renderReaders(next) {
  const list = $('reader-list');
  list.replaceChildren();
  for (const reader of next.readers) {
    const item = element('li', null, `reader ${reader.state}`);
    item.append(element('span', reader.name, 'reader-name'), element('span', readerWords[reader.state] ?? reader.state, 'reader-state'));
    const choose = element('button', reader.selected ? 'Reading here' : 'Read only here');
    choose.type = 'button';
    choose.setAttribute('aria-pressed', reader.selected ? 'true' : 'false');
    choose.addEventListener('click', () => post('/api/reader', { reader: reader.selected ? null : reader.name }).catch(showError));
    if (next.readers.length > 1) item.append(choose);
    list.append(item);
  }
  if (next.readers.length === 0) list.append(element('li', 'No PC/SC reader.', 'reader no_card'));
  const problems = $('reader-problem-list');
  problems.replaceChildren();
  for (const problem of next.reader_problems) {
    const item = element('li', `${problem.name}: ${problem.seen}.`);
    if (problem.fix) item.append(' ', element('span', 'Fix: '), element('code', problem.fix));
    problems.append(item);
  }
  $('reader-problems').hidden = next.reader_problems.length === 0;
}

function renderKey(next) {
  const status = $('key-status');
  if (!next.key) {
    status.textContent = 'No key yet: type the MRZ fields, the CAN, or read the MRZ with the camera.';
    status.className = 'key-status';
    return;
  }
  const what = next.key.kind === 'can' ? 'the CAN' : `the MRZ of document ${next.key.document_number}`;
  status.textContent = `Key ready (${what}, ${next.key.source}): place the document on the reader.`;
  status.className = 'key-status ready';
}

function renderReading(reading) {
  const steps = $('steps');
  const progress = $('reading-progress');
  steps.replaceChildren();
  if (!reading) {
    $('read-alert').hidden = true;
    $('reading-status').textContent = state && state.key ? 'Place the document on the reader.' : 'Place the document on the reader once a key is given.';
    progress.hidden = true;
    return;
  }
  for (const step of reading.steps) steps.append(element('li', step.text, step.kind));
  if (reading.active) {
    $('reading-status').textContent = `Reading on ${reading.reader}${reading.file ? `: ${reading.file}` : ''}…`;
    progress.hidden = !reading.total_bytes;
    progress.max = reading.total_bytes || 1;
    progress.value = reading.bytes_read;
  } else {
    progress.hidden = true;
    $('reading-status').textContent = reading.error ? `The read failed: ${reading.error.message}` : 'Read. Remove the document.';
  }
  // A failed read is said where the person looks, above the document, until the next read.
  const alert = $('read-alert');
  alert.hidden = !reading || reading.active || !reading.error;
  alert.textContent = reading && reading.error ? `The read on ${reading.reader} failed: ${reading.error.message}` : '';
}

let browsingHistory = false;

function renderHistory(results) {
  const list = $('history');
  list.replaceChildren();
  for (const entry of results) {
    const item = element('li', null, entry.ok ? 'ok' : 'bad');
    const button = element('button', `${entry.name || entry.label} — ${entry.ok ? 'valid' : 'NOT VALID'} (${entry.source === 'chip' ? 'chip' : 'dump'}, ${entry.at.slice(11, 19)})`);
    button.type = 'button';
    button.setAttribute('aria-current', entry.id === shownResult ? 'true' : 'false');
    button.addEventListener('click', () => { browsingHistory = entry.id !== results[0].id; showResult(entry.id); });
    item.append(button);
    list.append(item);
  }
  if (results.length === 0) list.append(element('li', 'None yet.'));
}

async function showResult(id) {
  shownResult = id;
  try {
    const response = await fetch(`/api/results/${id}`, { credentials: 'same-origin' });
    if (!response.ok) return;
    const result = await response.json();
    if (shownResult === id) { renderResult(result); renderHolder(result, state !== null && state.holder); }
    if (state) renderHistory(state.results);
  } catch (error) { showError(error); }
}

function showError(error) {
  $('reading-status').textContent = error.message;
}

// --- the key ---------------------------------------------------------------------------------

const mrzFields = [
  { input: 'document-number', check: 'document-number-check', note: 'document-number-note', field: documentNumberField,
    valid: (v) => /^[A-Z0-9<]{1,9}$/.test(v.toUpperCase().replace(/\s/g, '')) },
  { input: 'birth', check: 'birth-check', note: 'birth-note', field: (v) => v, valid: isDate },
  { input: 'expiry', check: 'expiry-check', note: 'expiry-note', field: (v) => v, valid: isDate },
];

// Marks each field as the person types: the shape, then the check digit against the MRZ rule.
function validateMRZForm() {
  let allValid = true;
  for (const f of mrzFields) {
    const value = $(f.input).value.trim();
    const check = $(f.check).value.trim();
    let message = '';
    if (value && !f.valid(value)) message = f.input === 'document-number' ? 'letters and digits only' : 'a date YYMMDD';
    else if (value && check && checkDigit(f.field(value)) !== check) message = `check digit does not match (the MRZ rule gives ${checkDigit(f.field(value))})`;
    else if (value && check) message = 'check digit ok';
    $(f.note).textContent = message;
    const bad = message !== '' && message !== 'check digit ok';
    $(f.input).setAttribute('aria-invalid', bad ? 'true' : 'false');
    $(f.check).setAttribute('aria-invalid', bad ? 'true' : 'false');
    if (bad || !value) allValid = false;
  }
  return allValid;
}

async function useTypedKey(event) {
  event.preventDefault();
  if (!validateMRZForm()) { $('key-status').textContent = 'The MRZ fields are not complete or a check digit does not match.'; return; }
  try {
    await post('/api/key', {
      document_number: $('document-number').value.trim(), document_number_check: $('document-number-check').value.trim(),
      birth: $('birth').value.trim(), birth_check: $('birth-check').value.trim(),
      expiry: $('expiry').value.trim(), expiry_check: $('expiry-check').value.trim(), source: 'typed',
    });
    for (const f of mrzFields) { $(f.input).value = ''; $(f.check).value = ''; $(f.note).textContent = ''; }
  } catch (error) { $('key-status').textContent = error.message; }
}

async function useCAN(event) {
  event.preventDefault();
  try { await post('/api/key', { can: $('can').value.trim(), source: 'typed' }); $('can').value = ''; }
  catch (error) { $('key-status').textContent = error.message; }
}

function askConfirmation(reading, source) {
  pendingReading = { reading, source };
  const list = $('key-confirm-fields');
  list.replaceChildren();
  for (const [label, value] of [['Name', reading.name], ['Document number', reading.document_number],
    ['Birth date', reading.birth_date], ['Expiry date', reading.expiry_date], ['Issuing state', reading.issuing_state]]) {
    list.append(element('dt', label), element('dd', value));
  }
  $('key-confirm').hidden = false;
  $('key-confirm-use').focus();
}

async function confirmKey() {
  if (!pendingReading) return;
  const { reading, source } = pendingReading;
  pendingReading = null;
  $('key-confirm').hidden = true;
  try { await post('/api/key', { mrz: reading.lines.join('\n'), source }); }
  catch (error) { $('key-status').textContent = error.message; }
}

function rejectKey() {
  pendingReading = null;
  $('key-confirm').hidden = true;
  if (camera) scanFrames();
}

async function readPhoto() {
  const file = $('photo').files[0];
  if (!file) return;
  $('camera-status').textContent = 'Reading the MRZ of the photo…';
  try {
    const reading = await post('/api/ocr/photo', await file.arrayBuffer(), 'application/octet-stream');
    $('camera-status').textContent = 'MRZ read from the photo.';
    askConfirmation(reading, 'photo');
  } catch (error) { $('camera-status').textContent = error.message; }
  $('photo').value = '';
}

// The camera: frames go to the server one at a time; two that agree give the key.
async function startCamera() {
  try {
    camera = { stream: await openCamera($('camera-video')), running: false };
    $('camera-view').hidden = false;
    $('camera-start').hidden = true;
    $('camera-stop').hidden = false;
    await post('/api/ocr/reset');
    scanFrames();
  } catch (error) {
    $('camera-status').textContent = `The camera cannot be used: ${error.message}`;
  }
}

function stopCamera() {
  if (!camera) return;
  closeCamera(camera.stream);
  camera = null;
  $('camera-view').hidden = true;
  $('camera-start').hidden = false;
  $('camera-stop').hidden = true;
  $('camera-status').textContent = '';
}

async function scanFrames() {
  if (!camera || camera.running) return;
  camera.running = true;
  const video = $('camera-video');
  const canvas = document.createElement('canvas');
  $('camera-status').textContent = 'Hold the data page in the frame, MRZ inside the guide.';
  while (camera && !pendingReading) {
    const blob = await cameraFrame(video, canvas);
    if (!blob) continue;
    let reading;
    try { reading = await post('/api/ocr/frame', blob, 'image/jpeg'); }
    catch (error) { $('camera-status').textContent = error.message; break; }
    if (reading.status === 'agreed') {
      $('camera-status').textContent = `MRZ read: ${reading.frames} frames, two agree.`;
      if (state && state.keep_reading) {
        await post('/api/key', { mrz: reading.lines.join('\n'), source: 'camera' }).catch(showError);
        break;  // the next document's frames are read once this key is used
      }
      askConfirmation(reading, 'camera');
      break;
    }
    $('camera-status').textContent = reading.status === 'waiting' ? 'An MRZ was read; hold still for a second frame.' : 'Looking for the MRZ…';
  }
  if (camera) camera.running = false;
}

// --- recorded dumps ----------------------------------------------------------------------------

function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function sendDump(files, label) {
  $('dump-status').textContent = `Verifying ${label}…`;
  try {
    let result;
    const name = encodeURIComponent(label);
    if (files.length === 1 && /\.zip$/i.test(files[0].name)) {
      result = await post(`/api/dump?name=${name}`, await files[0].arrayBuffer(), 'application/zip');
    } else {
      const list = [];
      for (const file of files) list.push({ name: file.path || file.webkitRelativePath || file.name, data: base64(await file.arrayBuffer()) });
      result = await post(`/api/dump?name=${name}`, { files: list });
    }
    $('dump-status').textContent = `${label}: ${result.ok ? 'passive authentication passed' : 'NOT VALID'}.`;
    browsingHistory = false;
    showResult(result.id);
  } catch (error) { $('dump-status').textContent = error.message; }
}

// Files of a dropped folder (its entries, recursively).
async function entryFiles(entry, prefix = '') {
  if (entry.isFile) return [await new Promise((resolve, reject) => entry.file((f) => { f.path = prefix + f.name; resolve(f); }, reject))];
  const reader = entry.createReader();
  const files = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) files.push(...await entryFiles(child, `${prefix}${entry.name}/`));
  }
  return files;
}

async function dropped(event) {
  event.preventDefault();
  $('drop-zone').classList.remove('over');
  const items = [...event.dataTransfer.items].map((item) => item.webkitGetAsEntry && item.webkitGetAsEntry()).filter(Boolean);
  let files = [];
  for (const entry of items) files.push(...await entryFiles(entry));
  if (files.length === 0) files = [...event.dataTransfer.files];
  if (files.length) sendDump(files, items.length === 1 ? items[0].name : files[0].name);
}

// --- wiring ----------------------------------------------------------------------------------

function wire() {
  $('mrz-form').addEventListener('submit', useTypedKey);
  for (const f of mrzFields) for (const id of [f.input, f.check]) $(id).addEventListener('input', validateMRZForm);
  $('can-form').addEventListener('submit', useCAN);
  $('key-confirm-use').addEventListener('click', confirmKey);
  $('key-confirm-reject').addEventListener('click', rejectKey);
  $('photo').addEventListener('change', readPhoto);
  $('camera-start').addEventListener('click', startCamera);
  $('camera-stop').addEventListener('click', stopCamera);
  $('clear').addEventListener('click', () => { pendingReading = null; $('key-confirm').hidden = true; post('/api/clear').catch(showError); });
  $('keep-reading').addEventListener('change', (e) => post('/api/keep-reading', { on: e.target.checked }).catch(showError));
  $('save-dump').addEventListener('click', async () => {
    try { const saved = await post(`/api/results/${shownResult}/save`); $('save-status').textContent = `Saved to ${saved.path}`; }
    catch (error) { $('save-status').textContent = error.message; }
  });
  const zone = $('drop-zone');
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', dropped);
  $('dump-files').addEventListener('change', (e) => { const files = [...e.target.files]; if (files.length) sendDump(files, files.length === 1 ? files[0].name : 'the chosen files'); e.target.value = ''; });
  $('dump-folder').addEventListener('change', (e) => {
    const files = [...e.target.files];
    if (files.length) sendDump(files, files[0].webkitRelativePath.split('/')[0] || 'the folder');
    e.target.value = '';
  });
}

wire();
wireHolder();
connect();

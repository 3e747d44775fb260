// The holder's side (`passport desk --holder`): a verified document's claims shown to a verifier
// as a QR code, or sent in answer to the request a verifier's QR code holds, once the person has
// seen who asks for what. The verifier's words are set as text only.
import { $, element, post, openCamera, closeCamera, cameraFrame } from '/assets/page.js';

let shown = null;        // the result whose claims are offered
let scanner = null;      // { stream, running }

export function clearHolder() {
  shown = null;
  stopScanner();
  $('holder').hidden = true;
}

export async function renderHolder(result, holderMode) {
  if (!holderMode || result.source !== 'chip') { clearHolder(); return; }
  if (shown === result.id) return;
  clearHolder();
  shown = result.id;
  $('holder').hidden = false;
  $('holder-ways').hidden = true;
  $('holder-qr').hidden = true;
  $('holder-consent').hidden = true;
  $('holder-status').textContent = '';
  const list = $('holder-claims-list');
  list.replaceChildren();
  if (!result.ok) {
    $('holder-level').textContent = 'This document did not pass every check: nothing is presented from it.';
    return;
  }
  try {
    const response = await fetch(`/api/results/${result.id}/claims`, { credentials: 'same-origin' });
    const data = await response.json();
    if (shown !== result.id) return;
    if (!response.ok) { $('holder-level').textContent = data.error.message; return; }
    $('holder-level').textContent = data.level_line;
    for (const claim of data.claims) {
      const id = `holder-claim-${claim.name}`;
      const box = element('input');
      box.type = 'checkbox';
      box.id = id;
      box.value = claim.name;
      box.checked = claim.agreed;
      const label = element('label', `${claim.name}: ${claim.value}`);
      label.htmlFor = id;
      const item = element('li');
      item.append(box, label);
      list.append(item);
    }
    $('holder-ways').hidden = false;
  } catch (error) { $('holder-level').textContent = error.message; }
}

function agreed() {
  return [...$('holder-claims-list').querySelectorAll('input:checked')].map((box) => box.value);
}

// --- a QR code for a verifier --------------------------------------------------------------------

async function makeQRCode(event) {
  event.preventDefault();
  const audience = $('holder-audience').value.trim();
  $('holder-qr').hidden = true;
  try {
    const made = await post(`/api/results/${shown}/presentation`, { audience, nonce: $('holder-nonce').value.trim(), disclose: agreed() });
    const image = $('holder-qr-image');
    image.src = `${made.qr.image}?made=${Date.now()}`;
    image.alt = `QR code of the presentation for ${audience}`;
    $('holder-qr-caption').textContent = `For ${audience}: ${made.disclosed.join(', ')} (level ${made.level}, ${made.bytes} bytes, `
      + `QR version ${made.qr.version}, ${made.qr.modules}×${made.qr.modules} modules), under ${made.did}.`;
    $('holder-qr').hidden = false;
    $('holder-status').textContent = 'The QR code is ready for the verifier to scan.';
  } catch (error) { $('holder-status').textContent = error.message; }
}

// --- a verifier's request from its QR code ---------------------------------------------------------

function requestPath(kind) {
  return `/api/results/${shown}/request-${kind}?agreed=${encodeURIComponent(agreed().join(','))}`;
}

function askConsent(request) {
  const lines = $('holder-consent-lines');
  lines.replaceChildren(...request.summary.map((line) => element('li', line)));
  $('holder-consent').hidden = false;
  $('holder-status').textContent = 'Read the verifier\'s request, then send or decline.';
  $('holder-send').focus();
}

async function startScanner() {
  try {
    scanner = { stream: await openCamera($('holder-video')), running: false };
    $('holder-camera').hidden = false;
    $('holder-scan-start').hidden = true;
    $('holder-scan-stop').hidden = false;
    $('holder-consent').hidden = true;
    scanFrames();
  } catch (error) {
    $('holder-status').textContent = `The camera cannot be used: ${error.message}`;
  }
}

function stopScanner() {
  if (!scanner) return;
  closeCamera(scanner.stream);
  scanner = null;
  $('holder-camera').hidden = true;
  $('holder-scan-start').hidden = false;
  $('holder-scan-stop').hidden = true;
}

// Frames go to the desk one at a time until one holds a verifier's request.
async function scanFrames() {
  if (!scanner || scanner.running) return;
  scanner.running = true;
  const video = $('holder-video');
  const canvas = document.createElement('canvas');
  $('holder-status').textContent = 'Hold the verifier\'s QR code in view of the camera.';
  while (scanner) {
    const blob = await cameraFrame(video, canvas);
    if (!blob) continue;
    let answer;
    try { answer = await post(requestPath('frame'), blob, 'image/jpeg'); }
    catch (error) { $('holder-status').textContent = error.message; stopScanner(); return; }
    if (answer.status === 'request') { stopScanner(); askConsent(answer); return; }
  }
}

async function readRequestPhoto() {
  const file = $('holder-request-photo').files[0];
  if (!file) return;
  $('holder-status').textContent = 'Reading the verifier\'s QR code in the photo…';
  $('holder-consent').hidden = true;
  try { askConsent(await post(requestPath('photo'), await file.arrayBuffer(), 'application/octet-stream')); }
  catch (error) { $('holder-status').textContent = error.message; }
  $('holder-request-photo').value = '';
}

async function send() {
  $('holder-consent').hidden = true;
  $('holder-status').textContent = 'Sending…';
  try {
    const sent = await post(`/api/results/${shown}/request-send`);
    const claims = [...new Set(Object.values(sent.disclosed).flat())].join(', ');
    $('holder-status').textContent = `Sent ${claims} to ${sent.client_id}: the verifier accepted it (HTTP ${sent.verifier_status})`
      + (sent.redirect_uri ? `; continue at ${sent.redirect_uri}` : '') + '.';
  } catch (error) { $('holder-status').textContent = `Not sent: ${error.message}`; }
}

async function decline() {
  $('holder-consent').hidden = true;
  await post(`/api/results/${shown}/request-decline`).catch(() => {});
  $('holder-status').textContent = 'Declined: nothing was signed or sent.';
}

export function wireHolder() {
  $('holder-qr-form').addEventListener('submit', makeQRCode);
  $('holder-scan-start').addEventListener('click', startScanner);
  $('holder-scan-stop').addEventListener('click', () => { stopScanner(); $('holder-status').textContent = ''; });
  $('holder-request-photo').addEventListener('change', readRequestPhoto);
  $('holder-send').addEventListener('click', send);
  $('holder-decline').addEventListener('click', decline);
}

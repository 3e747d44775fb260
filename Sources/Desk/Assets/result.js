// One document as a person reads it: the face large, the data of DG1 (and DG11/DG12), the MRZ of
// the page beside the chip's, one verdict line per check with its details and certificates.
import { $, element } from '/assets/page.js';

const documentTypes = { P: 'Passport', I: 'Identity card', A: 'Identity card', C: 'Identity card', V: 'Visa' };
const sexes = { M: 'male', F: 'female', X: 'unspecified', '<': 'unspecified' };

export function clearResult() {
  $('result-body').hidden = true;
  $('result-empty').hidden = false;
  $('face').removeAttribute('src');
}

export function renderResult(result) {
  $('result-empty').hidden = true;
  $('result-body').hidden = false;
  const overall = $('result-verdict');
  const origin = result.source === 'chip' ? `read on ${result.label}` : `recorded dump ${result.label}`;
  overall.textContent = result.ok
    ? `Valid: every check that ran passed (${origin}).`
    : `NOT VALID (${origin}): ${firstFailure(result)}`;
  overall.className = `overall ${result.ok ? 'passed' : 'failed'}`;
  renderFace(result);
  renderFields(result.document);
  renderMRZ(result.mrz);
  renderBiometrics(result.biometrics, result.document);
  renderVerdicts(result.verdicts);
  $('save-dump').hidden = !result.savable;
  $('save-status').textContent = '';
  const evidence = $('download-evidence');
  evidence.href = `/api/results/${result.id}/evidence.json`;
  evidence.hidden = result.source !== 'chip';
  $('download-report').href = `/api/results/${result.id}/report.json`;
}

function firstFailure(result) {
  const failed = result.verdicts.find((v) => v.status === 'failed');
  if (failed) return `${failed.title}: ${failed.summary}`;
  return (result.document.problems ?? [])[0] ?? 'a check failed';
}

function renderFace(result) {
  const face = $('face');
  if (result.face) {
    face.src = result.face.url;
    face.hidden = false;
    const origin = result.source === 'chip' ? 'From the chip' : 'From the dump';
    $('face-caption').textContent = `${origin} (DG2, ${result.face.format}, ${result.face.width}×${result.face.height})`;
  } else {
    face.removeAttribute('src');
    face.hidden = true;
    $('face-caption').textContent = 'No face image (no DG2 in this document).';
  }
}

// DG11 and DG12 spell a space as '<' and separate surname and given names with '<<' (ICAO 9303-10).
function spaced(text) { return text === undefined || text === null ? text : text.replace(/</g, ' ').replace(/ +/g, ' ').trim(); }
function name(text) {
  if (!text) return text;
  const [surname, given] = text.split('<<');
  return given === undefined ? spaced(surname) : `${spaced(surname)}, ${spaced(given)}`;
}
// "19880412" → "1988-04-12"; other forms (a year alone, partial dates) as stored.
function date(text) { return text && /^\d{8}$/.test(text) ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}` : text; }

function renderFields(report) {
  const list = $('fields');
  list.replaceChildren();
  const add = (label, value, className) => {
    if (value === undefined || value === null || value === '') return;
    const dd = element('dd', null, className);
    if (value instanceof Node) dd.append(value); else dd.textContent = value;
    list.append(element('dt', label), dd);
  };
  const d = report.document;
  if (d) {
    add('Surname', d.primary_identifier);
    add('Given names', d.secondary_identifier);
    add('Document', `${documentTypes[d.document_code[0]] ?? d.document_code} (${d.document_code}, ${d.mrz_format})`);
    add('Document number', d.document_number);
    add('Issuing state', d.issuing_state);
    add('Nationality', d.nationality);
    add('Date of birth', d.birth_date);
    add('Sex', sexes[d.sex] ? `${sexes[d.sex]} (${d.sex})` : d.sex);
    const expired = /^\d{4}-\d\d-\d\d$/.test(d.expiry_date) && d.expiry_date < new Date().toISOString().slice(0, 10);
    const expiry = element('span', d.expiry_date);
    if (expired) { expiry.append(' ', element('strong', 'EXPIRED', 'expired')); }
    add('Date of expiry', expiry, expired ? 'expired-row' : undefined);
  } else {
    add('Data', 'No DG1 in this document.');
  }
  const dg11 = report.dg11 ?? {};
  add('Full name (DG11)', name(dg11.full_name));
  add('Other names (DG11)', (dg11.other_names ?? []).map(name).join('; '));
  add('Personal number (DG11)', spaced(dg11.personal_number));
  add('Full date of birth (DG11)', date(dg11.full_date_of_birth));
  add('Place of birth (DG11)', spaced(dg11.place_of_birth));
  add('Address (DG11)', spaced(dg11.address));
  add('Telephone (DG11)', spaced(dg11.telephone));
  add('Profession (DG11)', spaced(dg11.profession));
  add('Title (DG11)', spaced(dg11.title));
  const dg12 = report.dg12 ?? {};
  add('Issuing authority (DG12)', spaced(dg12.issuing_authority));
  add('Date of issue (DG12)', date(dg12.date_of_issue));
  add('Endorsements (DG12)', spaced(dg12.endorsements));
  for (const problem of report.problems ?? []) add('Problem', problem, 'problem');
}

// The MRZ printed on the page (camera, photo, typed in full) against DG1's; differences marked.
function renderMRZ(comparison) {
  const box = $('mrz-comparison');
  box.replaceChildren();
  if (!comparison) { box.hidden = true; return; }
  box.hidden = false;
  box.append(element('h3', comparison.same ? 'The printed MRZ is the chip\'s (DG1)' : 'The printed MRZ DIFFERS from the chip\'s (DG1)',
    comparison.same ? 'passed' : 'failed'));
  for (const [label, lines, other] of [['Printed', comparison.printed, comparison.chip], ['Chip', comparison.chip, comparison.printed]]) {
    const row = element('p', null, 'mrz-lines');
    row.append(element('span', `${label}: `, 'mrz-label'));
    lines.forEach((line, i) => {
      const code = element('code');
      for (let k = 0; k < line.length; k++) {
        const differs = (other[i] ?? '')[k] !== line[k];
        code.append(differs ? element('mark', line[k]) : document.createTextNode(line[k]));
      }
      row.append(code);
    });
    box.append(row);
  }
}

function renderBiometrics(images, report) {
  const box = $('biometrics');
  box.replaceChildren();
  const stored = (report.dg3 ?? []).length + (report.dg4 ?? []).length;
  box.hidden = stored === 0;
  if (!stored) return;
  box.append(element('h3', 'Fingerprints and irises (DG3, DG4)'));
  if (images.length < stored) {
    box.append(element('p', `${stored - images.length} of ${stored} images are not shown: they are WSQ fingerprints (or another format `
      + 'this desk cannot decode), which passport photo --dg3 saves as stored.'));
  }
  for (const image of images) {
    const figure = element('figure');
    const img = element('img');
    img.src = image.url;
    img.alt = image.label;
    figure.append(img, element('figcaption', `${image.label}, ${image.width}×${image.height}`));
    box.append(figure);
  }
}

const marks = { passed: '✔', failed: '✘', neutral: '–' };
const words = { passed: 'passed', failed: 'FAILED', neutral: 'not checked' };

function renderVerdicts(verdicts) {
  const list = $('verdicts');
  list.replaceChildren();
  for (const verdict of verdicts) {
    const item = element('li', null, `verdict ${verdict.status}`);
    item.dataset.check = verdict.check;
    item.dataset.status = verdict.status;
    const details = element('details');
    const summary = element('summary');
    summary.append(element('span', marks[verdict.status], 'mark'), element('span', `${verdict.title}: `, 'title'),
      element('span', verdict.summary, 'summary-text'), element('span', ` (${words[verdict.status]})`, 'sr-only'));
    details.append(summary);
    if (verdict.details.length) {
      const lines = element('ul');
      for (const line of verdict.details) lines.append(element('li', line));
      details.append(lines);
    }
    for (const certificate of verdict.certificates) {
      const c = certificate.report;
      const table = element('dl', null, 'certificate');
      table.append(element('dt', certificate.role), element('dd', c.subject));
      for (const [label, value] of [['Country', certificate.country], ['Issuer', c.issuer], ['Serial', c.serial],
        ['Valid', `${c.not_before.slice(0, 10)} to ${c.not_after.slice(0, 10)}`], ['Key', c.key], ['From', c.source]]) {
        if (value) table.append(element('dt', label), element('dd', value));
      }
      details.append(table);
    }
    if (!verdict.details.length && !verdict.certificates.length) details.append(element('p', 'Nothing more to show.'));
    item.append(details);
    list.append(item);
  }
}

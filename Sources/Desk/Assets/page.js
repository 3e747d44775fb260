// What every part of the page uses: elements by id, elements made with text only (never markup),
// POST to the desk with its cookie, an error's message thrown as the desk wrote it, and the webcam.
export const $ = (id) => document.getElementById(id);

export function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

export async function post(path, body, type = 'application/json') {
  const response = await fetch(path, {
    method: 'POST', headers: { 'Content-Type': type }, credentials: 'same-origin',
    body: type === 'application/json' ? JSON.stringify(body ?? {}) : body,
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : {};
  if (!response.ok) throw new Error(data.error ? data.error.message : `${response.status} ${response.statusText}`);
  return data;
}

// The webcam shown in `video`: its stream, to stop with `closeCamera`.
export async function openCamera(video) {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 1280 }, height: { ideal: 720 } }, audio: false });
  video.srcObject = stream;
  try { await video.play(); } catch (error) { closeCamera(stream); throw error; }
  return stream;
}

export function closeCamera(stream) {
  for (const track of stream.getTracks()) track.stop();
}

// The frame `video` shows now, as JPEG (drawn on `canvas`); null until the camera gives frames,
// after a tenth of a second, so that a loop asking again can look whether it was stopped.
export async function cameraFrame(video, canvas) {
  if (!video.videoWidth) { await new Promise((resolve) => setTimeout(resolve, 100)); return null; }
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext('2d').drawImage(video, 0, 0);
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
}

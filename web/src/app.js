// app.js - the live map of an airspace: every file of the repository at its
// embedding position (GET /v1/map/layout), the agents at the recency-weighted
// centre of their working sets, advisories as links between them, locks as
// shaded regions, and the panels, kept live over the daemon's event stream.
// Drawn with three.js (WebGL) when it is there, else on a 2-D canvas.
// Served by the daemon; talks to nobody else (docs/protocol.md, "The map").

const $ = (s) => document.querySelector(s);
const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
const HUMAN = 'human';

// ---------- talking to the daemon ----------

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(path, body) {
  const opt = { headers: { Authorization: 'Bearer ' + token }, cache: 'no-store' };
  if (body !== undefined) {
    opt.method = 'POST';
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  let r;
  try {
    r = await fetch(path, opt);
  } catch (e) {
    throw new ApiError(0, 'the daemon does not answer');
  }
  const j = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, (j && j.error && j.error.message) || r.statusText);
  return j;
}

// ---------- state ----------

const S = {
  layout: null,          // {paths, xyz: Float32Array, dir, dirs, lang, langs, activity}
  index: new Map(),      // path -> file index
  agents: [], advisories: [], escalations: [], locks: [], intents: [], conflicts: [],
  inbox: [], messages: [], ledger: [],
  lastId: 0, status: null,
  colourBy: 'dir',
  follow: null,          // agent id followed
  marks: new Map(),      // agent id -> {pos, target, trail: [[x,y,z]], colour}
  gone: false,
  refused: false,        // the daemon answers but not to this token: for good
  waiting: new Set(),    // ids of the messages unread in the human's inbox
};

const LEVEL_COLOUR = { traffic: '#f5a623', resolution: '#ff4d4f', clear: '#3fb37f' };
const LOCK_COLOUR = '#a78bfa';

function hsl(h, s, l) {
  // [r, g, b] in 0..1 for h in turns
  const a = s * Math.min(l, 1 - l);
  const f = (n) => {
    const k = (n + h * 12) % 12;
    return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0), f(8), f(4)];
}
const css = (c) => `rgb(${Math.round(c[0] * 255)},${Math.round(c[1] * 255)},${Math.round(c[2] * 255)})`;
const palette = (i) => hsl((i * 0.618034) % 1, 0.62, 0.6);
function hashStr(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
const agentColour = (id) => hsl((hashStr(id) % 1000) / 1000, 0.75, 0.66);

function topDir(d) { const i = d.indexOf('/'); return i < 0 ? d : d.slice(0, i); }

// glob (util/glob.h: * within a segment, ** across, ?) to a RegExp
function globRe(g) {
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*' && g[i + 1] === '*') { re += '.*'; i++; if (g[i + 1] === '/') i++; }
    else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp('^' + re + '(/.*)?$');
}

// ---------- layout and positions ----------

function setLayout(L) {
  const n = L.paths.length;
  const xyz = new Float32Array(3 * n);
  for (let i = 0; i < 3 * n; i++) xyz[i] = L.xyz[i];
  S.layout = { ...L, xyz };
  S.index = new Map(L.paths.map((p, i) => [p, i]));
  // directory clusters: the centre and spread of each top directory and
  // of each directory two levels down
  const groups = new Map();
  for (let i = 0; i < n; i++) {
    const d = L.dirs[L.dir[i]];
    const parts = d ? d.split('/') : [];
    for (let k = 1; k <= Math.min(2, parts.length); k++) {
      const key = parts.slice(0, k).join('/');
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { key, depth: k, n: 0, s: [0, 0, 0], q: 0 }));
      g.n++;
      for (let c = 0; c < 3; c++) g.s[c] += xyz[3 * i + c];
    }
  }
  const clusters = [];
  for (const g of groups.values()) {
    if (g.n < 2) continue;
    g.c = g.s.map((v) => v / g.n);
    clusters.push(g);
  }
  for (let i = 0; i < n; i++) {
    const d = L.dirs[L.dir[i]];
    const parts = d ? d.split('/') : [];
    for (let k = 1; k <= Math.min(2, parts.length); k++) {
      const g = groups.get(parts.slice(0, k).join('/'));
      if (!g.c) continue;
      const dx = xyz[3 * i] - g.c[0], dy = xyz[3 * i + 1] - g.c[1], dz = xyz[3 * i + 2] - g.c[2];
      g.q += dx * dx + dy * dy + dz * dz;
    }
  }
  for (const g of clusters) g.r = Math.max(4, Math.sqrt(g.q / g.n) * 1.3);
  S.clusters = clusters;
  // the cloud's centre and radius, for the camera
  const mid = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) mid[c] += xyz[3 * i + c] / n;
  let r = 10;
  for (let i = 0; i < n; i++) r = Math.max(r, Math.hypot(xyz[3 * i] - mid[0], xyz[3 * i + 1] - mid[1], xyz[3 * i + 2] - mid[2]));
  S.centre = mid;
  S.radius = r;
  const tops = [...new Set(L.dirs.map(topDir))].sort();
  S.topColour = new Map(tops.map((t, i) => [t, palette(i)]));
  S.langColour = new Map(L.langs.map((t, i) => [t, t === 'none' ? [0.55, 0.6, 0.68] : palette(i + 3)]));
}

// where a path is: its own position, else (a file the graph lacks: new in
// an agent's tree) near the files of its nearest directory
const guessCache = new Map();
function posOf(path) {
  const i = S.index.get(path);
  if (i !== undefined) { const x = S.layout.xyz; return [x[3 * i], x[3 * i + 1], x[3 * i + 2]]; }
  if (guessCache.has(path)) return guessCache.get(path);
  let p = null;
  let d = path;
  while (!p && d.includes('/')) {
    d = d.slice(0, d.lastIndexOf('/'));
    const g = S.clusters && S.clusters.find((c) => c.key === d);
    if (g) p = g.c.slice();
  }
  if (!p) p = [0, 0, 0];
  const h = hashStr(path);
  p = [p[0] + ((h & 255) / 255 - 0.5) * 6, p[1] + (((h >> 8) & 255) / 255 - 0.5) * 6, p[2] + (((h >> 16) & 255) / 255 - 0.5) * 6];
  guessCache.set(path, p);
  return p;
}

// an agent's centre: its files weighted by recency; an agent with none
// waits on a ring outside the cloud
function agentCentre(a, k) {
  let w = 0; const c = [0, 0, 0];
  for (const f of a.files || []) {
    const p = posOf(f.path), fw = f.weight > 0 ? f.weight : 0.05;
    for (let j = 0; j < 3; j++) c[j] += fw * p[j];
    w += fw;
  }
  // agents on the same files would hide each other: a small offset each
  const h = hashStr(a.id), j = 2.5;
  if (w > 0) return c.map((v, k) => v / w + (((h >> (8 * k)) & 255) / 255 - 0.5) * 2 * j);
  const t = (k / Math.max(1, S.agents.length)) * Math.PI * 2, r = (S.radius || 100) * 0.9, o = S.centre || [0, 0, 0];
  return [o[0] + Math.cos(t) * r, o[1] - r * 0.6, o[2] + Math.sin(t) * r];
}

function lockRegion(l) {
  const re = globRe(l.pattern);
  const pts = [];
  for (const p of S.layout.paths) if (re.test(p)) { pts.push(posOf(p)); if (pts.length > 4000) break; }
  if (!pts.length) pts.push(posOf(l.pattern));
  const c = [0, 0, 0];
  for (const p of pts) for (let j = 0; j < 3; j++) c[j] += p[j] / pts.length;
  let r = 0;
  for (const p of pts) r = Math.max(r, Math.hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]));
  return { c, r: Math.max(5, r + 3), n: pts.length };
}

// ---------- the camera (shared by both renderers) ----------

const cam = { target: [0, 0, 0], yaw: 0.7, pitch: 0.45, dist: 300, fov: 50, goal: null };

function eye() {
  const cp = Math.cos(cam.pitch);
  return [cam.target[0] + cam.dist * cp * Math.sin(cam.yaw), cam.target[1] + cam.dist * Math.sin(cam.pitch),
    cam.target[2] + cam.dist * cp * Math.cos(cam.yaw)];
}
function basis() {
  const e = eye();
  const f = [cam.target[0] - e[0], cam.target[1] - e[1], cam.target[2] - e[2]];
  const fl = Math.hypot(...f); for (let i = 0; i < 3; i++) f[i] /= fl;
  let r = [f[1] * 0 - f[2] * 1, f[2] * 0 - f[0] * 0, f[0] * 1 - f[1] * 0]; // f x up(0,1,0)
  const rl = Math.hypot(...r) || 1; r = r.map((v) => v / rl);
  const u = [r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]];
  return { e, f, r, u };
}
let B = basis(), W = 1, H = 1, focal = 1;
function project(p) {
  const d = [p[0] - B.e[0], p[1] - B.e[1], p[2] - B.e[2]];
  const z = d[0] * B.f[0] + d[1] * B.f[1] + d[2] * B.f[2];
  if (z < 1) return null;
  const x = d[0] * B.r[0] + d[1] * B.r[1] + d[2] * B.r[2];
  const y = d[0] * B.u[0] + d[1] * B.u[1] + d[2] * B.u[2];
  return [W / 2 + (x / z) * focal, H / 2 - (y / z) * focal, z];
}
function flyTo(p, dist) {
  cam.goal = { target: p.slice(), dist: dist || cam.dist, t: 0 };
}

// ---------- renderers ----------

const canvas = $('#view');

// whether WebGL works here, and whether it is a software rasteriser
// (SwiftShader, llvmpipe: no multisampling then, it costs more than it
// shows)
function webglProbe() {
  try {
    const c = document.createElement('canvas');
    const gl = c.getContext('webgl2') || c.getContext('webgl');
    if (!gl) return null;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    const lose = gl.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext();
    return { software: /swiftshader|llvmpipe|software/i.test(name) };
  } catch (e) { return null; }
}

// three.js: the cloud as one THREE.Points (one draw call), directory
// clusters as a second, agents, links and locks as meshes and lines
function make3D(THREE, software) {
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: !software, powerPreference: 'high-performance' });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.setClearColor(0x0b0f17, 1);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(cam.fov, 1, 0.5, 20000);
  const vert = `attribute float size; attribute vec3 acolor; varying vec3 vColor; uniform float scale; uniform float maxSize;
    void main() { vColor = acolor; vec4 mv = modelViewMatrix * vec4(position, 1.0);
      gl_PointSize = clamp(size * scale / -mv.z, 1.5, maxSize); gl_Position = projectionMatrix * mv; }`;
  const frag = `varying vec3 vColor; uniform float alpha; uniform float ring;
    void main() { float d = length(gl_PointCoord - 0.5); if (d > 0.5) discard;
      float a = ring > 0.5 ? smoothstep(0.5, 0.44, d) * smoothstep(0.3, 0.37, d) : smoothstep(0.5, 0.3, d);
      gl_FragColor = vec4(vColor, a * alpha); }`;
  // maxSize: a file stays a dot when the camera comes close (and the fill
  // stays bounded); clusters may be large
  const pointMat = (alpha, ring, additive, maxSize = 18) => new THREE.ShaderMaterial({
    uniforms: { scale: { value: 300 }, alpha: { value: alpha }, ring: { value: ring ? 1 : 0 }, maxSize: { value: maxSize } },
    vertexShader: vert, fragmentShader: frag, transparent: true, depthWrite: false,
    blending: additive ? THREE.AdditiveBlending : THREE.NormalBlending,
  });
  const mkPoints = (n, mat) => {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    g.setAttribute('acolor', new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    g.setAttribute('size', new THREE.BufferAttribute(new Float32Array(n), 1));
    const o = new THREE.Points(g, mat);
    o.frustumCulled = false;
    scene.add(o);
    return o;
  };
  let cloud = null, clusters = null, rings = null;
  const agentGeo = new THREE.OctahedronGeometry(2.6);
  const agentMeshes = new Map();
  const trails = new Map();
  const linkGeo = (n) => { const g = new THREE.BufferGeometry(); g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * n), 3)); return g; };
  const traffic = new THREE.LineSegments(linkGeo(64), new THREE.LineBasicMaterial({ color: LEVEL_COLOUR.traffic, transparent: true, opacity: 0.9 }));
  const resolution = new THREE.LineSegments(linkGeo(64), new THREE.LineBasicMaterial({ color: LEVEL_COLOUR.resolution, transparent: true, opacity: 1 }));
  for (const o of [traffic, resolution]) { o.frustumCulled = false; scene.add(o); }
  const lockGeo = new THREE.SphereGeometry(1, 24, 16);
  const lockMat = new THREE.MeshBasicMaterial({ color: LOCK_COLOUR, transparent: true, opacity: 0.13, depthWrite: false });
  const lockWire = new THREE.MeshBasicMaterial({ color: LOCK_COLOUR, transparent: true, opacity: 0.25, wireframe: true, depthWrite: false });
  let lockMeshes = [];
  const setLinks = (obj, segs) => {
    let attr = obj.geometry.getAttribute('position');
    if (attr.count < segs.length * 2) { obj.geometry.dispose(); obj.geometry = linkGeo(segs.length * 2); attr = obj.geometry.getAttribute('position'); }
    segs.forEach((s, k) => { attr.setXYZ(2 * k, ...s[0]); attr.setXYZ(2 * k + 1, ...s[1]); });
    obj.geometry.setDrawRange(0, segs.length * 2);
    attr.needsUpdate = true;
  };
  return {
    name: 'WebGL (three.js r' + THREE.REVISION + (software ? ', software' : '') + ')',
    setCloud(pos, col, size) {
      if (cloud) { scene.remove(cloud); cloud.geometry.dispose(); }
      cloud = mkPoints(pos.length / 3, pointMat(0.9, false, false));
      cloud.geometry.getAttribute('position').array.set(pos);
      this.colours(col, size);
    },
    colours(col, size) {
      cloud.geometry.getAttribute('acolor').array.set(col);
      cloud.geometry.getAttribute('size').array.set(size);
      cloud.geometry.getAttribute('acolor').needsUpdate = true;
      cloud.geometry.getAttribute('size').needsUpdate = true;
    },
    setClusters(list) {
      if (clusters) { scene.remove(clusters); clusters.geometry.dispose(); }
      clusters = mkPoints(list.length, pointMat(0.07, false, true, 900));
      const g = clusters.geometry;
      list.forEach((c, i) => {
        g.getAttribute('position').setXYZ(i, ...c.c);
        g.getAttribute('acolor').setXYZ(i, ...c.colour);
        g.getAttribute('size').setX(i, c.r * 2.2);
      });
    },
    setRings(list) { // contested and conflicting files
      if (rings) { scene.remove(rings); rings.geometry.dispose(); }
      rings = mkPoints(list.length, pointMat(1, true, false));
      const g = rings.geometry;
      list.forEach((r, i) => {
        g.getAttribute('position').setXYZ(i, ...r.p);
        g.getAttribute('acolor').setXYZ(i, ...r.colour);
        g.getAttribute('size').setX(i, 9);
      });
    },
    setLocks(regions) {
      for (const m of lockMeshes) scene.remove(m);
      lockMeshes = [];
      for (const r of regions) {
        for (const mat of [lockMat, lockWire]) {
          const m = new THREE.Mesh(lockGeo, mat);
          m.position.set(...r.c); m.scale.setScalar(r.r);
          scene.add(m); lockMeshes.push(m);
        }
      }
    },
    frame(now, marks, links) {
      for (const [id, m] of marks) {
        let mesh = agentMeshes.get(id);
        if (!mesh) {
          mesh = new THREE.Mesh(agentGeo, new THREE.MeshBasicMaterial({ color: new THREE.Color(...m.colour) }));
          scene.add(mesh); agentMeshes.set(id, mesh);
          const tg = new THREE.BufferGeometry();
          tg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * 32), 3));
          const tl = new THREE.Line(tg, new THREE.LineBasicMaterial({ color: new THREE.Color(...m.colour), transparent: true, opacity: 0.55 }));
          tl.frustumCulled = false;
          scene.add(tl); trails.set(id, tl);
        }
        mesh.position.set(...m.pos);
        mesh.rotation.y = now / 900;
        mesh.scale.setScalar(S.follow === id ? 1.6 : 1);
        const tl = trails.get(id), pa = tl.geometry.getAttribute('position');
        const pts = m.trail.concat([m.pos]).slice(-32);
        pts.forEach((p, k) => pa.setXYZ(k, ...p));
        tl.geometry.setDrawRange(0, pts.length);
        pa.needsUpdate = true;
      }
      for (const [id, mesh] of agentMeshes) if (!marks.has(id)) {
        scene.remove(mesh); scene.remove(trails.get(id)); agentMeshes.delete(id); trails.delete(id);
      }
      setLinks(traffic, links.filter((l) => l.level === 'traffic').map((l) => [l.a, l.b]));
      setLinks(resolution, links.filter((l) => l.level === 'resolution').map((l) => [l.a, l.b]));
      resolution.material.opacity = 0.45 + 0.55 * (0.5 + 0.5 * Math.sin(now / 180));
      const e = eye();
      camera.position.set(...e);
      camera.up.set(0, 1, 0);
      camera.lookAt(...cam.target);
      for (const o of [cloud, clusters, rings]) if (o) o.material.uniforms.scale.value = focal;
      renderer.render(scene, camera);
    },
    resize(w, h) { renderer.setSize(w, h, false); camera.aspect = w / h; camera.updateProjectionMatrix(); },
  };
}

// the 2-D fallback: the same camera, points projected by hand
function make2D(why) {
  // a canvas in memory, drawn by the CPU: a GPU-backed one on a software
  // rasteriser is many times slower
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  let pos = null, size = null, groups = [], clusters = [], rings = [], locks = [];
  let dpr = 1;
  return {
    name: '2-D canvas (' + why + ')',
    setCloud(p, c, s) { pos = p; this.colours(c, s); },
    colours(c, s) { // the points by colour: one fill per colour
      const by = new Map();
      for (let i = 0, n = c.length / 3; i < n; i++) {
        const k = css([c[3 * i], c[3 * i + 1], c[3 * i + 2]]);
        let g = by.get(k);
        if (!g) by.set(k, (g = []));
        g.push(i);
      }
      groups = [...by].map(([k, v]) => ({ css: k, idx: Int32Array.from(v) }));
      size = s;
    },
    setClusters(l) { clusters = l; },
    setRings(l) { rings = l; },
    setLocks(l) { locks = l; },
    frame(now, marks, links) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#0b0f17'; ctx.fillRect(0, 0, W, H);
      ctx.globalAlpha = 0.045;
      for (const c of clusters) {
        const p = project(c.c); if (!p) continue;
        ctx.fillStyle = css(c.colour);
        ctx.beginPath(); ctx.arc(p[0], p[1], (c.r * focal) / p[2], 0, 7); ctx.fill();
      }
      ctx.globalAlpha = 0.15;
      for (const l of locks) {
        const p = project(l.c); if (!p) continue;
        ctx.fillStyle = LOCK_COLOUR;
        ctx.beginPath(); ctx.arc(p[0], p[1], (l.r * focal) / p[2], 0, 7); ctx.fill();
      }
      ctx.globalAlpha = 0.9;
      if (pos) {
        const [ex, ey, ez] = B.e, [fx, fy, fz] = B.f, [rx, ry, rz] = B.r, [ux, uy, uz] = B.u;
        for (const g of groups) {
          ctx.fillStyle = g.css;
          ctx.beginPath();
          for (const i of g.idx) { // project() inlined: 20 000 a frame
            const dx = pos[3 * i] - ex, dy = pos[3 * i + 1] - ey, dz = pos[3 * i + 2] - ez;
            const z = dx * fx + dy * fy + dz * fz;
            if (z < 1) continue;
            const x = W / 2 + ((dx * rx + dy * ry + dz * rz) / z) * focal;
            const y = H / 2 - ((dx * ux + dy * uy + dz * uz) / z) * focal;
            if (x < -10 || x > W + 10 || y < -10 || y > H + 10) continue;
            const r = Math.min(4.5, Math.max(0.8, (size[i] * focal) / z / 2.4));
            ctx.rect(x - r, y - r, 2 * r, 2 * r);
          }
          ctx.fill();
        }
      }
      ctx.globalAlpha = 1;
      for (const r of rings) {
        const p = project(r.p); if (!p) continue;
        ctx.strokeStyle = css(r.colour); ctx.lineWidth = 1.5;
        ctx.beginPath(); ctx.arc(p[0], p[1], 6, 0, 7); ctx.stroke();
      }
      for (const l of links) {
        const a = project(l.a), b = project(l.b); if (!a || !b) continue;
        ctx.globalAlpha = l.level === 'resolution' ? 0.45 + 0.55 * (0.5 + 0.5 * Math.sin(now / 180)) : 0.9;
        ctx.strokeStyle = LEVEL_COLOUR[l.level]; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
      }
      ctx.globalAlpha = 1;
      for (const [id, m] of marks) {
        ctx.strokeStyle = css(m.colour); ctx.globalAlpha = 0.55; ctx.lineWidth = 1.5; ctx.beginPath();
        m.trail.concat([m.pos]).forEach((q, k) => { const p = project(q); if (p) (k ? ctx.lineTo : ctx.moveTo).call(ctx, p[0], p[1]); });
        ctx.stroke(); ctx.globalAlpha = 1;
        const p = project(m.pos); if (!p) continue;
        const r = S.follow === id ? 8 : 6;
        ctx.fillStyle = css(m.colour);
        ctx.beginPath(); ctx.moveTo(p[0], p[1] - r); ctx.lineTo(p[0] + r, p[1]); ctx.lineTo(p[0], p[1] + r); ctx.lineTo(p[0] - r, p[1]); ctx.fill();
      }
    },
    resize(w, h) { dpr = Math.min(window.devicePixelRatio || 1, 2); canvas.width = w * dpr; canvas.height = h * dpr; },
  };
}

let R = null; // the renderer

// ---------- what the renderer draws, from the state ----------

function cloudColours() {
  const L = S.layout, n = L.paths.length;
  const col = new Float32Array(3 * n), size = new Float32Array(n);
  const hot = new Map(); // path -> agent colour, for the agents' own files
  for (const a of S.agents) if (a.status === 'active') for (const f of a.files || []) hot.set(f.path, agentColour(a.id));
  for (let i = 0; i < n; i++) {
    const c = S.colourBy === 'lang' ? S.langColour.get(L.langs[L.lang[i]]) : S.topColour.get(topDir(L.dirs[L.dir[i]]));
    const h = hot.get(L.paths[i]);
    const k = h || c;
    col[3 * i] = k[0]; col[3 * i + 1] = k[1]; col[3 * i + 2] = k[2];
    const act = L.activity[i] || 0;
    size[i] = 3.2 + Math.min(6, act * 4) + (h ? 5 : 0);
  }
  return { col, size };
}

function redrawCloud(full) {
  if (!S.layout || !R) return;
  const { col, size } = cloudColours();
  if (full) {
    R.setCloud(S.layout.xyz, col, size);
    // faint clusters: the top directories, and the next level when there
    // are few (each is a large blended sprite: fill costs)
    const tops = S.clusters.filter((c) => c.depth === 1);
    const shown = S.clusters.length <= 40 ? S.clusters : tops;
    R.setClusters(shown.map((c) => ({ ...c, colour: S.topColour.get(c.key.split('/')[0]) || [0.5, 0.5, 0.6] })));
  } else R.colours(col, size);
  legend();
}

function redrawMarks() {
  if (!S.layout || !R) return;
  const rings = [];
  for (const adv of S.advisories) for (const c of adv.contested || []) rings.push({ p: posOf(c.path), colour: [1, 0.3, 0.31] });
  for (const adv of S.advisories) for (const p of adv.mergeConflicts || []) rings.push({ p: posOf(p), colour: [1, 0.3, 0.31] });
  for (const c of S.conflicts) if (c.file) rings.push({ p: posOf(c.file), colour: [1, 0.62, 0.2] });
  R.setRings(rings);
  S.lockRegions = S.locks.map((l) => ({ ...lockRegion(l), lock: l }));
  R.setLocks(S.lockRegions);
}

function updateMarks() {
  const seen = new Set();
  S.agents.forEach((a, k) => {
    if ((a.status === 'exited' && !a.parked) || (a.kind === 'human' && !(a.files || []).length)) return;
    seen.add(a.id);
    const target = agentCentre(a, k);
    let m = S.marks.get(a.id);
    if (!m) S.marks.set(a.id, (m = { pos: target.slice(), target, trail: [], colour: agentColour(a.id) }));
    const moved = Math.hypot(target[0] - m.target[0], target[1] - m.target[1], target[2] - m.target[2]);
    // the trail: where it was while it had work (not its waiting place)
    const busy = (a.files || []).length > 0;
    if (busy && !m.busy) m.trail = [];
    else if (moved > 0.5 && busy) { m.trail.push(m.pos.slice()); if (m.trail.length > 24) m.trail.shift(); }
    m.busy = busy;
    m.target = target;
  });
  for (const id of [...S.marks.keys()]) if (!seen.has(id)) S.marks.delete(id);
}

// ---------- labels (HTML over the canvas) ----------

const labelsEl = $('#labels');
const labelPool = new Map();
function label(key, cls, build) {
  let el = labelPool.get(key);
  if (!el) {
    el = document.createElement('div');
    el.className = 'lbl ' + cls;
    labelsEl.appendChild(el);
    labelPool.set(key, el);
  }
  el._used = true;
  if (build) build(el);
  return el;
}
// boxes taken this frame by the labels that must stay readable (agents,
// links): a label that would cover one moves down a line or two
let taken = [];
function place(el, p, dx = 0, dy = 0, declutter = false) {
  if (!p || p[0] < -200 || p[0] > W + 200 || p[1] < -50 || p[1] > H + 50) { el.style.display = 'none'; return; }
  el.style.display = '';
  let x = Math.round(p[0] + dx), y = Math.round(p[1] + dy);
  if (declutter) {
    if (!el._w) { el._w = el.offsetWidth || 80; el._h = el.offsetHeight || 16; }
    for (let k = 0; k < 8; k++) {
      const hit = taken.find((b) => x < b.x + b.w && b.x < x + el._w && y < b.y + b.h && b.y < y + el._h);
      if (!hit) break;
      y = hit.y + hit.h + 1;
    }
    taken.push({ x, y, w: el._w, h: el._h });
  }
  el.style.transform = `translate(${x}px, ${y}px)`;
}

function intentOf(id) {
  const mine = S.intents.filter((i) => i.agent === id);
  return mine.length ? mine[mine.length - 1] : null;
}

function drawLabels() {
  taken = [];
  for (const el of labelPool.values()) el._used = false;
  if (S.clusters) for (const c of S.clusters) if (c.depth === 1) {
    const el = label('d:' + c.key, 'dir', (e) => { if (!e.textContent) e.textContent = c.key + '/'; });
    place(el, project(c.c), -10, -8);
  }
  for (const [id, m] of S.marks) {
    const a = S.agents.find((x) => x.id === id);
    const it = intentOf(id);
    const text = `${id}\u0000${a && a.client || ''}\u0000${it ? it.summary || '' : ''}\u0000${S.follow === id}`;
    const el = label('a:' + id, 'agent', (e) => {
      if (e._text === text) return;
      e._text = text;
      e._w = 0;
      e.textContent = '';
      e.style.setProperty('--c', css(m.colour));
      e.classList.toggle('follow', S.follow === id);
      const b = document.createElement('b'); b.textContent = id; e.appendChild(b);
      const s = document.createElement('span'); s.className = 'sub';
      s.textContent = ' ' + (a && a.client || a && a.kind || '') + (it && it.summary ? ' · ' + it.summary.slice(0, 48) : '');
      e.appendChild(s);
    });
    place(el, project(m.pos), 9, -9, true);
  }
  for (const adv of S.advisories) {
    if (adv.level === 'clear') continue;
    const ma = S.marks.get(adv.a), mb = S.marks.get(adv.b);
    if (!ma || !mb) continue;
    const mid = [0, 1, 2].map((k) => (ma.pos[k] + mb.pos[k]) / 2);
    const el = label('l:' + adv.a + '\t' + adv.b, 'link', (e) => {
      const t = adv.parked ? `${adv.parked} parked` : adv.hold ? `${adv.hold} holds · ${adv.steer} steers` : adv.level;
      if (e.textContent === t && e.className === 'lbl link ' + adv.level) return;
      e.className = 'lbl link ' + adv.level;
      e.textContent = t;
      e._w = 0;
    });
    place(el, project(mid), -40, 4, true);
  }
  for (const r of S.lockRegions || []) {
    const l = r.lock;
    const el = label('k:' + l.token, 'lock', (e) => {
      e.textContent = `${l.kind === 'claim' ? 'claim' : 'lock'} ${l.pattern} · ${l.holder} · ${fmtLeft(l.expiresAt)}`;
    });
    place(el, project([r.c[0], r.c[1] + r.r, r.c[2]]), -30, -14);
  }
  for (const [k, el] of labelPool) if (!el._used) { el.remove(); labelPool.delete(k); }
}

// ---------- the loop ----------

let lastT = 0;
function frame(now) {
  requestAnimationFrame(frame);
  const dt = Math.min(0.1, (now - (lastT || now)) / 1000);
  lastT = now;
  if (S.follow && S.marks.has(S.follow)) {
    const m = S.marks.get(S.follow);
    for (let k = 0; k < 3; k++) cam.target[k] += (m.pos[k] - cam.target[k]) * Math.min(1, dt * 4);
    if (cam.goal) {
      cam.dist += (cam.goal.dist - cam.dist) * Math.min(1, dt * 3);
      if (Math.abs(cam.goal.dist - cam.dist) < 0.5) cam.goal = null;
    }
  } else if (cam.goal) {
    const g = cam.goal;
    g.t = Math.min(1, g.t + dt * 1.6);
    const e = g.t * g.t * (3 - 2 * g.t);
    for (let k = 0; k < 3; k++) cam.target[k] += (g.target[k] - cam.target[k]) * e;
    cam.dist += (g.dist - cam.dist) * e;
    if (g.t >= 1) cam.goal = null;
  }
  for (const m of S.marks.values()) for (let k = 0; k < 3; k++) m.pos[k] += (m.target[k] - m.pos[k]) * Math.min(1, dt * 3);
  B = basis();
  if (R && S.layout) {
    const links = [];
    for (const adv of S.advisories) {
      if (adv.level === 'clear') continue;
      const a = S.marks.get(adv.a), b = S.marks.get(adv.b);
      if (a && b) links.push({ a: a.pos, b: b.pos, level: adv.level });
    }
    R.frame(now, S.marks, links);
    drawLabels();
    if (!window.__mapFirstFrame) window.__mapFirstFrame = performance.now(); // for bench/map.sh
  }
  window.__mapFrames = (window.__mapFrames || 0) + 1;
}

function resize() {
  const r = canvas.getBoundingClientRect();
  W = Math.max(1, r.width); H = Math.max(1, r.height);
  focal = H / 2 / Math.tan((cam.fov * Math.PI) / 360);
  if (R) R.resize(W, H);
}

// ---------- panels ----------

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmtAgo(ms) {
  if (!ms) return '';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 60 ? s + 's ago' : s < 3600 ? Math.round(s / 60) + 'm ago' : Math.round(s / 3600) + 'h ago';
}
function fmtLeft(at) {
  if (!at || at > 8e15) return 'no expiry';
  const s = Math.max(0, Math.round((at - Date.now()) / 1000));
  return s < 120 ? s + 's left' : Math.round(s / 60) + 'm left';
}
// a time in the panels, "12s ago" or "40s left", in a span of its own
// that tick() keeps current between the events that rebuild the panels
function ago(at) {
  const e = el('span', 'muted', fmtAgo(at));
  e.dataset.ago = at || 0;
  return e;
}
function left(at) {
  const e = el('span', '', fmtLeft(at));
  e.dataset.left = at || 0;
  return e;
}
function tick() {
  for (const e of document.querySelectorAll('[data-ago]')) {
    const t = fmtAgo(Number(e.dataset.ago));
    if (e.textContent !== t) e.textContent = t;
  }
  for (const e of document.querySelectorAll('[data-left]')) {
    const t = fmtLeft(Number(e.dataset.left));
    if (e.textContent !== t) e.textContent = t;
  }
}
setInterval(tick, 1000);

function fill(sel, items, render, emptyText) {
  const ul = $(sel + ' .list');
  ul.textContent = '';
  $(sel + ' h2 .n').textContent = items.length ? '(' + items.length + ')' : '';
  if (!items.length) { ul.appendChild(el('li', 'empty', emptyText)); return; }
  for (const it of items) { const li = el('li'); render(li, it); ul.appendChild(li); }
}
function badge(kind, text) { return el('span', 'badge ' + kind, text || kind); }

function renderPanels() {
  // the agents in the airspace: active ones, and the parked (their session
  // over, their work not landed; the daemon still scores it)
  const active = S.agents.filter((a) => a.status !== 'exited' || a.parked);
  fill('#p-agents', active, (li, a) => {
    const b = el('button', 'agent');
    b.type = 'button';
    b.setAttribute('aria-label', `follow ${a.id}`);
    const dot = el('span', 'dot'); dot.style.background = css(agentColour(a.id)); b.appendChild(dot);
    b.appendChild(el('b', '', a.id));
    const it = intentOf(a.id);
    b.appendChild(el('span', 'muted', ` ${a.client || a.kind} · ${a.parked ? 'parked' : a.status} · ${a.fileCount} file${a.fileCount === 1 ? '' : 's'}` + (it && it.summary ? ' · ' + it.summary : '')));
    b.addEventListener('click', () => follow(a.id));
    li.appendChild(b);
  }, 'no agents yet');
  const order = { resolution: 0, traffic: 1, clear: 2 };
  const board = S.advisories.slice().sort((x, y) => (y.since || 0) - (x.since || 0) || order[x.level] - order[y.level]);
  fill('#p-board', board, (li, p) => {
    li.appendChild(badge(p.level));
    li.appendChild(el('b', '', `${p.a} ↔ ${p.b}`));
    const why = (p.why || []).length ? ` from ${p.why.join(', ')}` : '';
    li.appendChild(el('span', 'muted', ` risk ${(p.risk || 0).toFixed(2)}${why} · `));
    li.appendChild(ago(p.since));
    if (p.parked) li.appendChild(el('div', '', `${p.parked} parked: not active now, its work not landed`));
    else if (p.hold) li.appendChild(el('div', '', `${p.hold} holds, ${p.steer} steers`));
    const files = (p.contested || []).map((c) => c.path).concat(p.mergeConflicts || []);
    if (files.length) li.appendChild(el('div', 'muted', 'contested: ' + [...new Set(files)].join(', ')));
  }, 'all clear');
  fill('#p-conflicts', S.conflicts, (li, c) => {
    li.appendChild(badge('conflict', c.shape));
    const who = c.branch ? [(c.agents || [])[0], `branch ${c.branch}`] : (c.agents || []);
    li.appendChild(el('span', '', `${who.join(' ↔ ')} on ${c.file || '?'}`));
    li.appendChild(el('span', 'muted', ' '));
    li.appendChild(ago(c.since));
    if (c.escalated) li.appendChild(el('span', 'muted', ' · escalated'));
  }, 'none');
  fill('#p-locks', S.locks, (li, l) => {
    li.appendChild(badge(l.kind === 'claim' ? 'claim' : 'lock', l.kind + (l.mode === 'shared' ? ' (shared)' : '')));
    li.appendChild(el('b', '', l.pattern));
    const t = el('span', 'muted', ` ${l.holder} · `);
    t.appendChild(left(l.expiresAt));
    t.appendChild(document.createTextNode((l.reason ? ' · ' + l.reason : '') + (l.contestedBy ? ' · contested by ' + l.contestedBy : '')));
    li.appendChild(t);
  }, 'none');
  const msgs = [];
  for (const e of S.escalations) msgs.push({ at: e.since, kind: e.kind === 'message' ? 'question' : 'conflict', head: 'waits for you', text: e.text });
  for (const m of S.messages) {
    const waits = m.to === HUMAN && S.waiting.has(m.id);
    msgs.push({ at: m.at, kind: m.type || 'info', head: `${m.from} → ${m.to}`, text: m.body, waits });
  }
  msgs.sort((a, b) => (b.at || 0) - (a.at || 0));
  // the newest 100, and always what waits for the human however old
  const waits = msgs.filter((m) => m.waits);
  const shown = waits.concat(msgs.filter((m) => !m.waits).slice(0, Math.max(0, 100 - waits.length)));
  shown.sort((a, b) => (b.at || 0) - (a.at || 0));
  fill('#p-messages', shown, (li, m) => {
    li.appendChild(badge(m.kind));
    li.appendChild(el('b', '', m.head + ' '));
    li.appendChild(el('span', '', m.text));
    li.appendChild(el('span', 'muted', ' '));
    li.appendChild(ago(m.at));
  }, 'no messages');
  const sel = $('#reply-to'), keep = sel.value;
  sel.textContent = '';
  for (const a of active) if (a.id !== HUMAN) sel.appendChild(new Option(a.id, a.id));
  sel.appendChild(new Option('all agents', 'all'));
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  fill('#p-ledger', S.ledger.slice(-200).reverse(), (li, e) => {
    li.textContent = `${new Date(e.ts).toLocaleTimeString()} #${e.id} ${e.type}${e.agent ? ' ' + e.agent : ''}${evSummary(e)}`;
  }, 'nothing yet');
  const adv = S.advisories.filter((p) => p.level !== 'clear');
  $('#counts').textContent = `${S.layout ? S.layout.paths.length : 0} files · ${active.length} agents · ` +
    `${adv.filter((p) => p.level === 'resolution').length} resolution, ${adv.filter((p) => p.level === 'traffic').length} traffic · ` +
    `${S.locks.length} locks · ${S.escalations.length} waiting for you`;
  renderFollow();
}

function evSummary(e) {
  const d = e.data || {};
  if (e.type === 'advisory') return ` ${d.a} ↔ ${d.b}: ${d.from || '?'} → ${d.level}`;
  if (e.type.startsWith('lock.') || e.type.startsWith('claim.')) return ` ${d.pattern || ''}`;
  if (e.type === 'message') return ` → ${d.to}: ${(d.body || '').slice(0, 60)}`;
  if (e.type === 'workset.changed') {
    const n = typeof d.files === 'number' ? d.files : (d.files || []).length; // a count (docs/protocol.md)
    return ` (${n} file${n === 1 ? '' : 's'})`;
  }
  if (e.type === 'workset.edit') return ` ${d.path || ''}`;
  if (e.type.startsWith('intent.')) return ` ${d.summary || ''}`;
  if (e.type.startsWith('conflict')) return ` ${d.shape || ''} ${d.file || ''}`;
  return '';
}

function renderFollow() {
  const box = $('#follow');
  const a = S.follow && S.agents.find((x) => x.id === S.follow);
  if (!a) { box.hidden = true; return; }
  box.hidden = false;
  $('#follow-title').textContent = `${a.id} (${a.client || a.kind}, ${a.status})`;
  const body = $('#follow-body');
  body.textContent = '';
  const sec = (title, items, render, empty) => {
    body.appendChild(el('h3', '', title));
    if (!items.length) { body.appendChild(el('div', 'muted', empty)); return; }
    const ul = el('ul');
    for (const it of items) { const li = el('li'); render(li, it); ul.appendChild(li); }
    body.appendChild(ul);
  };
  const it = intentOf(a.id);
  sec('Intent', it ? [it] : [], (li, i) => { li.textContent = (i.summary || '') + ' — ' + (i.files || []).join(', '); }, 'none declared');
  sec('Working set', (a.files || []).slice().sort((x, y) => y.weight - x.weight), (li, f) => {
    li.textContent = `${f.path} (${f.status}, ${(f.lines || []).length} ranges, weight ${(f.weight || 0).toFixed(2)})`;
  }, 'no changes');
  sec('Locks', S.locks.filter((l) => l.holder === a.id), (li, l) => {
    li.textContent = `${l.kind} ${l.pattern} · `;
    li.appendChild(left(l.expiresAt));
  }, 'none');
  sec('Advisories', S.advisories.filter((p) => p.level !== 'clear' && (p.a === a.id || p.b === a.id)), (li, p) => {
    li.appendChild(badge(p.level)); li.appendChild(el('span', '', `with ${p.a === a.id ? p.b : p.a}: ${p.hold === a.id ? 'holds' : 'steers'}`));
  }, 'clear');
  sec('Messages', S.messages.filter((m) => m.from === a.id || m.to === a.id).slice(-20).reverse(), (li, m) => {
    li.textContent = `${m.from} → ${m.to}: ${m.body}`;
  }, 'none');
}

function follow(id) {
  S.follow = id;
  cam.goal = null;
  const m = S.marks.get(id);
  if (m) flyTo(m.pos, Math.min(cam.dist, (S.radius || 100) * 0.7));
  renderFollow();
  $('#unfollow').focus();
}
function unfollow() {
  const was = S.follow;
  S.follow = null;
  renderFollow();
  if (was) canvas.focus();
}

function legend() {
  const lg = $('#legend');
  lg.textContent = '';
  const entries = S.colourBy === 'lang' ? [...S.langColour] : [...S.topColour];
  const counts = new Map();
  const L = S.layout;
  for (let i = 0; i < L.paths.length; i++) {
    const k = S.colourBy === 'lang' ? L.langs[L.lang[i]] : topDir(L.dirs[L.dir[i]]);
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  entries.sort((a, b) => (counts.get(b[0]) || 0) - (counts.get(a[0]) || 0));
  for (const [k, c] of entries.slice(0, 10)) {
    const row = el('div', 'row');
    const sw = el('span', 'sw'); sw.style.background = css(c); row.appendChild(sw);
    row.appendChild(document.createTextNode(`${k || '(top level)'} ${counts.get(k) || 0}`));
    lg.appendChild(row);
  }
  if (entries.length > 10) lg.appendChild(el('div', 'muted', `+ ${entries.length - 10} more`));
  const keys = el('div', 'keys');
  keys.textContent = '◆ agent · amber link: traffic · red pulsing: resolution · violet: lock · red ring: contested file';
  lg.appendChild(keys);
}

// ---------- live ----------

function banner(text) {
  const b = $('#banner');
  b.hidden = !text;
  b.textContent = text || '';
}

let refreshTimer = null, refreshing = false, again = false;
function scheduleRefresh(delay = 120) {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, delay);
}
async function refresh() {
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    const [ag, adv, lk, it, cf, inbox] = await Promise.all([
      api('/v1/agents?files=1'), api('/v1/advisories?all=1'), api('/v1/locks'), api('/v1/intents'),
      api('/v1/conflicts'), api('/v1/agents/supervisor/inbox?peek=1'),
    ]);
    // the human's inbox: the answers to the reply box, unread (there is
    // no such agent, and no inbox, until the human has sent a reply)
    const mine = (ag.agents || []).some((a) => a.id === HUMAN)
      ? await api(`/v1/agents/${encodeURIComponent(HUMAN)}/inbox?peek=1`) : { messages: [] };
    S.agents = ag.agents || [];
    // the board: every raised pair, and clear ones closing in (R >= 0.2)
    S.advisories = (adv.advisories || []).filter((p) => p.level !== 'clear' || p.risk >= 0.2);
    S.escalations = adv.escalations || [];
    S.locks = lk.locks || [];
    S.intents = it.intents || [];
    S.conflicts = cf.conflicts || [];
    S.inbox = inbox.messages || [];
    S.waiting = new Set((mine.messages || []).map((m) => m.id));
    for (const m of S.inbox.concat(mine.messages || [])) if (!S.messages.some((x) => x.id === m.id)) S.messages.push(m);
    if (!S.gone && !S.refused) banner('');
    updateMarks();
    redrawCloud(false);
    redrawMarks();
    renderPanels();
  } catch (e) {
    lost(e);
  } finally {
    refreshing = false;
    if (again) { again = false; scheduleRefresh(); }
  }
}

const GONE = 'The daemon is gone: the map shows the last picture and reconnects when it is back.';

// a daemon that answers 401 restarted (a new token) or this address is
// old: no retry can succeed, so the page stops asking and says what to do
function refused() {
  S.refused = true;
  if (es) { es.close(); es = null; }
  banner('The daemon refused the token: it restarted, or this address is old. Run `airspace open` again.');
}

function lost(e) {
  if (e.status === 401) refused();
  else if (e.status === 0) { S.gone = true; banner(GONE); }
  else banner('The daemon answered: ' + e.message);
}

const EVENT_TYPES = ['agent.discovered', 'agent.registered', 'agent.active', 'agent.exited', 'agent.stale', 'agent.gone',
  'worktree.pruned', 'workset.changed', 'workset.edit', 'git.commit', 'advisory', 'intent.declared', 'intent.dropped',
  'intent.expired', 'message', 'prompt.topics', 'conflict', 'conflict.escalated', 'stream.dropped'];
for (const k of ['lock', 'claim']) for (const t of ['granted', 'refreshed', 'renewed', 'released', 'released_all', 'expired', 'reassigned'])
  EVENT_TYPES.push(k + '.' + t);
EVENT_TYPES.push('claim.contested', 'claim.force_released');

let es = null;
function connect() {
  if (S.refused) return;
  if (es) es.close();
  const me = (es = new EventSource(`/v1/events?token=${encodeURIComponent(token)}&after=${S.lastId}`));
  es.onopen = () => {
    if (S.gone) { S.gone = false; banner(''); scheduleRefresh(0); }
  };
  es.onerror = () => {
    // the browser reconnects by itself, sending Last-Event-ID; an
    // EventSource cannot see why it failed, so a cheap request tells a
    // daemon gone (no answer) from a restarted one (401: a new token)
    if (S.refused || es !== me) return;
    S.gone = true;
    banner(GONE);
    api('/v1/status').catch((e) => { if (e.status === 401 && es === me) refused(); }).finally(() => {
      // a stream the browser gave up on (not one it retries itself)
      if (es === me && me.readyState === EventSource.CLOSED) setTimeout(() => { if (es === me) connect(); }, 2000);
    });
  };
  const on = (type) => (msg) => {
    let ev;
    try { ev = JSON.parse(msg.data); } catch (e) { return; }
    if (type === 'stream.dropped') { S.lastId = (ev.data && ev.data.after) || S.lastId; connect(); return; }
    if (ev.id) S.lastId = Math.max(S.lastId, ev.id);
    S.ledger.push(ev);
    if (S.ledger.length > 500) S.ledger.splice(0, S.ledger.length - 500);
    if (type === 'message' && ev.data) {
      const m = ev.data;
      if (!S.messages.some((x) => x.id === m.id)) S.messages.push({ ...m, at: m.at || ev.ts });
    }
    scheduleRefresh();
  };
  for (const t of EVENT_TYPES) es.addEventListener(t, on(t));
}

async function loadLedger() {
  const after = Math.max(0, S.lastId - 100);
  try {
    const l = await api(`/v1/ledger?after=${after}&limit=100`);
    S.ledger = l.events || [];
    for (const e of S.ledger) if (e.type === 'message' && e.data && !S.messages.some((x) => x.id === e.data.id))
      S.messages.push({ ...e.data, at: e.data.at || e.ts });
  } catch (e) { /* shown by refresh */ }
}

async function loadLayout() {
  for (;;) {
    const L = await api('/v1/map/layout');
    $('#repo').textContent = L.repository || '';
    document.title = 'airspace map · ' + (L.repository || '');
    if (L.paths.length || (L.index && L.index.state !== 'indexing')) return L;
    $('#status-line').textContent = `indexing the repository… ${L.index.done || 0} / ${L.index.total || '?'}`;
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---------- input ----------

function bindInput() {
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY, moved: 0 }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.moved += Math.abs(dx) + Math.abs(dy);
    drag.x = e.clientX; drag.y = e.clientY;
    cam.yaw -= dx * 0.006;
    cam.pitch = Math.max(-1.45, Math.min(1.45, cam.pitch + dy * 0.006));
  });
  canvas.addEventListener('pointerup', (e) => {
    const click = drag && drag.moved < 5;
    drag = null;
    if (!click) return;
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    let best = null, bd = 24;
    for (const [id, m] of S.marks) {
      const p = project(m.pos); if (!p) continue;
      const d = Math.hypot(p[0] - x, p[1] - y);
      if (d < bd) { bd = d; best = id; }
    }
    if (best) follow(best);
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    cam.goal = null;
    cam.dist = Math.max(8, Math.min(5000, cam.dist * Math.exp(e.deltaY * 0.0012)));
  }, { passive: false });
  canvas.addEventListener('keydown', (e) => {
    const k = e.key;
    if (k === 'ArrowLeft') cam.yaw += 0.08;
    else if (k === 'ArrowRight') cam.yaw -= 0.08;
    else if (k === 'ArrowUp') cam.pitch = Math.min(1.45, cam.pitch + 0.06);
    else if (k === 'ArrowDown') cam.pitch = Math.max(-1.45, cam.pitch - 0.06);
    else if (k === '+' || k === '=') cam.dist = Math.max(8, cam.dist * 0.85);
    else if (k === '-' || k === '_') cam.dist = Math.min(5000, cam.dist / 0.85);
    else if (k === 'Enter') {
      let best = null, bd = Infinity;
      for (const [id, m] of S.marks) { const p = project(m.pos); if (p) { const d = Math.hypot(p[0] - W / 2, p[1] - H / 2); if (d < bd) { bd = d; best = id; } } }
      if (best) follow(best);
    } else return;
    e.preventDefault();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { if (S.follow) unfollow(); $('#suggest').textContent = ''; }
    else if (e.key === '/' && !/INPUT|TEXTAREA|SELECT/.test(document.activeElement.tagName)) { e.preventDefault(); $('#search').focus(); }
  });
  $('#unfollow').addEventListener('click', unfollow);
  $('#colour-by').addEventListener('change', (e) => { S.colourBy = e.target.value; redrawCloud(false); });
  const search = $('#search'), sug = $('#suggest'), hint = $('#search-hint');
  const matches = (q) => {
    if (!q || !S.layout) return [];
    const out = [];
    for (const p of S.layout.paths) { if (p === q || p.endsWith('/' + q)) out.unshift(p); else if (p.includes(q)) out.push(p); if (out.length > 200) break; }
    return out;
  };
  const go = (p) => {
    S.follow = null; renderFollow();
    flyTo(posOf(p), Math.max(25, (S.radius || 100) * 0.18));
    hint.textContent = p;
    sug.textContent = '';
    const i = S.index.get(p);
    if (i !== undefined && R) { // a flash on the file: bigger for a moment
      const { col, size } = cloudColours();
      size[i] = 22; col[3 * i] = col[3 * i + 1] = col[3 * i + 2] = 1;
      R.colours(col, size);
      setTimeout(() => redrawCloud(false), 2500);
    }
  };
  search.addEventListener('input', () => {
    const m = matches(search.value.trim());
    sug.textContent = '';
    hint.textContent = search.value.trim() ? `${m.length > 200 ? '200+' : m.length} match${m.length === 1 ? '' : 'es'}` : '';
    for (const p of m.slice(0, 8)) {
      const li = el('li'), b = el('button', '', p);
      b.type = 'button'; b.setAttribute('role', 'option');
      b.addEventListener('click', () => go(p));
      li.appendChild(b); sug.appendChild(li);
    }
  });
  search.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' && sug.firstChild) { e.preventDefault(); sug.firstChild.firstChild.focus(); }
  });
  sug.addEventListener('keydown', (e) => {
    const li = document.activeElement.parentElement;
    if (e.key === 'ArrowDown' && li.nextSibling) { e.preventDefault(); li.nextSibling.firstChild.focus(); }
    if (e.key === 'ArrowUp') { e.preventDefault(); (li.previousSibling ? li.previousSibling.firstChild : search).focus(); }
  });
  $('#search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const m = matches(search.value.trim());
    if (m.length) go(m[0]); else hint.textContent = 'no such path';
  });
  $('#reply').addEventListener('submit', async (e) => {
    e.preventDefault();
    const to = $('#reply-to').value, body = $('#reply-body').value.trim(), st = $('#reply-status');
    if (!to || !body) { st.textContent = 'write a message first'; return; }
    try {
      if (!S.agents.some((a) => a.id === HUMAN && a.status !== 'exited'))
        await api('/v1/agents', { id: HUMAN, kind: 'human', client: 'map', label: 'supervisor' });
      const r = await api('/v1/messages', { from: HUMAN, to, type: 'info', body });
      st.textContent = `sent to ${r.delivered}`;
      $('#reply-body').value = '';
      scheduleRefresh(0);
    } catch (err) { st.textContent = 'not sent: ' + err.message; }
  });
  window.addEventListener('resize', resize);
}

// ---------- start ----------

let bound = false, looping = false;
async function main() {
  if (!bound) { bound = true; bindInput(); }
  if (!token) { banner('No token in the address: open the one `airspace open` printed.'); return; }
  // the state is fetched while three.js loads
  const data = Promise.all([api('/v1/status'), loadLayout()]);
  data.catch(() => {});
  // three.js on a GPU; on a software rasteriser (no GPU: SwiftShader,
  // llvmpipe) the 2-D canvas draws the same projection
  // faster (bench/RESULTS-map.md), unless the address asks for 3d
  let THREE = null;
  const gl = /[#&]2d\b/.test(location.hash) ? null : webglProbe();
  const why = !gl ? 'no WebGL' : 'no GPU';
  if (gl && (!gl.software || /[#&]3d\b/.test(location.hash))) {
    try { THREE = await import('./three.module.js'); } catch (e) { THREE = null; }
  }
  if (!R) {
    try { R = THREE ? make3D(THREE, gl.software) : make2D(THREE === null && gl && !gl.software ? 'three.js is not in this build' : why); } catch (e) { R = make2D(why); }
    $('#mode').textContent = R.name;
    $('#mode').title = R.name.startsWith('WebGL') ? 'three.js on WebGL; #…&2d in the address draws on the 2-D canvas'
      : why === 'no GPU' ? 'WebGL here is a software rasteriser, slower than this canvas; #…&3d in the address asks for three.js'
        : 'the same projection of the cloud, drawn on a 2-D canvas';
    document.body.dataset.renderer = R.name.startsWith('WebGL') ? '3d' : '2d';
  }
  resize();
  try {
    const [st, L] = await data;
    S.status = st;
    S.lastId = st.lastEventId || 0;
    setLayout(L);
    $('#status-line').textContent = L.paths.length ? '' : 'no files in the graph yet';
    cam.target = S.centre.slice();
    cam.dist = S.radius * 2.1;
    redrawCloud(true);
    if (!looping) { looping = true; requestAnimationFrame(frame); } // the cloud first; agents and panels follow
    await Promise.all([loadLedger(), refresh()]);
    connect();
  } catch (e) {
    lost(e);
    if (e.status === 0) setTimeout(main, 2000);
    return;
  }
  document.body.dataset.ready = '1';
}

main();

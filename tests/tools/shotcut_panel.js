// shotcut_panel.js META UI [SEEDS]: runs the functions and handlers of a Shotcut filter panel
// (ui_frei0r.qml) against a model of Shotcut's QmlFilter, as a user would drive it, and
// checks that every parameter the metadata (meta_frei0r.qml) lists as keyframeable can be
// keyframed from the panel and keeps its keyframes. Prints "ok ..." or "FAIL ..." lines.
//
// No Qt here: the QML is not run. Its root properties, functions, Component.onCompleted
// and the handlers of its elements (onValueChanged, onToggled) are JavaScript; this script
// takes them out of the file and runs them in one scope, with each element (by id) a plain
// object whose value setter fires onValueChanged when the value changes, as QML does.
// The model of QmlFilter follows Shotcut's src/qmltypes/qmlfilter.cpp: set(name, value)
// without a position sets a constant (the animation is gone), with one a keyframe;
// keyframeCount is 0 for a constant; Shotcut's Keyframes panel lists a parameter only when
// its keyframeCount is above 0 (src/models/keyframesmodel.cpp, load), so the panel's own
// controls must make the first keyframe. Keyframe types as MLT and Shotcut give them
// (mlt_animation.c, qmlfilter.cpp getKeyframeType): a keyframe set where the property has
// no animation yet is linear; one set where a keyframe is keeps that one's type; a new
// one takes the type asked, else that of the keyframe before it (the first one's when
// there is none before); a text with '=' is MLT's animation string ("10|=0.5;40=1": '|' or
// '!' before '=' discrete, '~' smooth, else linear); between two keyframes the value
// follows the type of the first (discrete: held). The Keyframes panel's own "add a
// keyframe" (keyframesmodel.cpp addKeyframe) sets one of the value there for a curve
// parameter, and for another only signals the panel (keyframeAdded).
//
// The text fields: the scene field sets 'resource' (the name MLT's XML reader makes
// absolute again) and empties 'scene', and shows an older project's 'scene'; the seed
// field's validator (a RegularExpressionValidator: Qt takes a text only when the whole
// matches) takes exactly what the plugin takes: SEEDS holds the plugin's own verdicts,
// "seed [TEXT] ok" or "seed [TEXT] refused" (frei0r_harness PLUGIN seeds).
'use strict';
const fs = require('fs');
const vm = require('vm');

const [meta, ui, seeds] = process.argv.slice(2).map((f) => fs.readFileSync(f, 'utf8'));
let failed = 0;
function check(name, cond) {
    console.log((cond ? 'ok ' : 'FAIL ') + name);
    if (!cond)
        failed++;
}

// The block from the '{' at open to its matching '}'.
function block(text, open) {
    let depth = 0;
    for (let i = open; i < text.length; i++) {
        if (text[i] === '{')
            depth++;
        else if (text[i] === '}' && --depth === 0)
            return text.slice(open, i + 1);
    }
    throw new Error('unbalanced braces');
}

// The metadata: the keyframed properties, which are curves, and those of the simple
// animation.
const keyed = [...meta.matchAll(/property:\s*'([^']*)'/g)].map((m) => m[1]);
const curves = [...meta.matchAll(/property:\s*'([^']*)'\s*isCurve:\s*true/g)].map((m) => m[1]);
// The parameters whose keyframes must be held (rockpool-frei0r(7): a changed strength
// replays the water from step 0, so a ramp replays it every frame).
const held = ['strength'];
const DISCRETE = 0, LINEAR = 1;
const simpleMatch = meta.match(/simpleProperties:\s*\[([^\]]*)\]/);
const simple = simpleMatch ? [...simpleMatch[1].matchAll(/'([^']*)'/g)].map((m) => m[1]) : [];

// The panel: root properties, functions, onCompleted, elements with their handlers.
const props = [...ui.matchAll(/^\s*property\s+\w+\s+(\w+):\s*(.+)$/gm)].map((m) => [m[1], m[2]]);
const funcs = [...ui.matchAll(/function\s+\w+\s*\([^)]*\)\s*\{/g)].map((m) =>
    m[0] + block(ui, m.index + m[0].length - 1).slice(1));
const completedAt = ui.search(/Component\.onCompleted:\s*\{/);
const completed = completedAt < 0 ? '{}' : block(ui, ui.indexOf('{', completedAt));
const elements = [];
for (const m of ui.matchAll(/\bid:\s*(\w+)/g)) {
    let depth = 0, open = m.index;
    for (; open >= 0; open--) {
        if (ui[open] === '}')
            depth++;
        else if (ui[open] === '{' && depth-- === 0)
            break;
    }
    const body = block(ui, open);
    const kind = ui.slice(ui.lastIndexOf('\n', open) + 1, open).trim();
    const handler = (re) => { const h = body.match(re); return h ? h[1].trim() : null; };
    const num = (re) => { const h = body.match(re); return h ? Number(h[1]) : undefined; };
    elements.push({
        id: m[1], kind,
        onValueChanged: handler(/onValueChanged:\s*(.+)$/m),
        onToggled: handler(/onToggled:\s*(.+)$/m),
        onEditingFinished: handler(/onEditingFinished:\s*(.+)$/m),
        regex: handler(/regularExpression:\s*\/(.*)\/\s*\}\s*$/m),
        max: num(/maximumValue:\s*([0-9.]+)/),
    });
}

// A model of Shotcut's QmlFilter (one filter, kept across panels) and its producer.
function makeFilter(duration) {
    // name -> {v} (a constant) or {keys: Map position -> {v, t}} (an animation)
    const p = new Map();
    const sorted = (e) => [...e.keys.keys()].sort((a, b) => a - b);
    // the key at or before position (the first when none is before), as mlt_animation_prev_key
    function prevKey(e, position) {
        const ks = sorted(e);
        let at = ks[0];
        for (const k of ks)
            if (k <= position)
                at = k;
        return at;
    }
    function keyType(e, position, type) {
        if (!e || !e.keys)
            return LINEAR;
        if (e.keys.has(position))
            return e.keys.get(position).t;
        if (type === undefined || type < 0)
            return e.keys.get(prevKey(e, position)).t;
        return type;
    }
    function parse(text) {
        const keys = new Map();
        for (const item of text.split(';').filter((x) => x !== '')) {
            const m = item.match(/^([0-9]+)([|!~]?)=(.*)$/);
            if (!m)
                throw new Error('not an animation item: ' + item);
            keys.set(Number(m[1]), {v: Number(m[3]), t: m[2] === '|' || m[2] === '!' ? DISCRETE :
                m[2] === '~' ? 2 : LINEAR});
        }
        return keys;
    }
    const f = {
        isNew: true, in: 0, duration, _animIn: 0, _animOut: 0, panel: null, texts: [],
        emit(signal, ...args) { if (f.panel && f.panel[signal]) f.panel[signal](...args); },
        get animateIn() { return f._animIn; },
        set animateIn(v) { if (v !== f._animIn) { f._animIn = v; f.emit('onAnimateInChanged'); } },
        get animateOut() { return f._animOut; },
        set animateOut(v) { if (v !== f._animOut) { f._animOut = v; f.emit('onAnimateOutChanged'); } },
        get(name) {
            const e = p.get(name);
            if (!e)
                return '';
            if ('v' in e)
                return String(e.v);
            return sorted(e).map((k) => k + ['|', '', '~'][e.keys.get(k).t] + '=' + e.keys.get(k).v).join(';');
        },
        getDouble(name, position) {
            const e = p.get(name);
            if (!e)
                return 0;
            if ('v' in e)
                return Number(e.v);
            const ks = sorted(e);
            const at = position === undefined || position < 0 ? 0 : position;
            if (at <= ks[0])
                return e.keys.get(ks[0]).v;
            for (let i = 1; i < ks.length; i++) {
                if (at <= ks[i]) {
                    const a = e.keys.get(ks[i - 1]), b = e.keys.get(ks[i]);
                    if (at === ks[i])
                        return b.v;
                    if (a.t === DISCRETE)
                        return a.v;
                    return a.v + (b.v - a.v) * (at - ks[i - 1]) / (ks[i] - ks[i - 1]);
                }
            }
            return e.keys.get(ks[ks.length - 1]).v;
        },
        set(name, value, position, type) {
            const e = p.get(name);
            if (position === undefined || position < 0) {
                if (typeof value === 'string') {
                    f.texts.push([name, value]);
                    if (value.includes('=')) {
                        p.set(name, {keys: parse(value)});
                        f.emit('onChanged');
                        return;
                    }
                }
                if (!e || !('v' in e) || e.v !== value) {
                    p.set(name, {v: value});
                    f.emit('onChanged');
                }
            } else {
                const keys = e && e.keys ? e.keys : new Map();
                if (!keys.has(position) || keys.get(position).v !== value) {
                    const t = keyType(e, position, type);
                    keys.set(position, {v: value, t});
                    p.set(name, {keys});
                    f.emit('onChanged');
                }
            }
        },
        keyframeCount(name) { const e = p.get(name); return e && e.keys ? e.keys.size : 0; },
        keys(name) {
            const e = p.get(name);
            return e && e.keys ? new Map(sorted(e).map((k) => [k, e.keys.get(k).v])) : null;
        },
        types(name) {
            const e = p.get(name);
            return e && e.keys ? sorted(e).map((k) => e.keys.get(k).t) : [];
        },
        resetProperty(name) { p.delete(name); },
        clearSimpleAnimation(name) {
            if (f.animateIn <= 0 && f.animateOut <= 0 && f.keyframeCount(name) <= 0)
                f.resetProperty(name);
            f.animateIn = 0;
            f.animateOut = 0;
        },
        // the Keyframes panel's "add a keyframe" at position (KeyframesModel::addKeyframe)
        addKeyframeFromPanel(name, position) {
            const e = p.get(name);
            if (curves.includes(name)) {
                if (e && e.keys && !e.keys.has(position))
                    f.set(name, f.getDouble(name, position), position, keyType(e, position, -1));
            } else {
                f.emit('onKeyframeAdded', name, position);
            }
        },
        savePreset() {},
    };
    return f;
}

// One panel over filter f: the QML's script in a scope of its own.
function openPanel(f, producer) {
    const src = [];
    src.push('"use strict";');
    for (const e of elements)
        src.push(`var ${e.id} = __element(${JSON.stringify(e.id)});`);
    for (const [name, value] of props)
        src.push(`var ${name} = ${value};`);
    src.push(...funcs);
    src.push('var __handlers = {');
    for (const e of elements) {
        if (e.onValueChanged)
            src.push(`${JSON.stringify(e.id + '.value')}: function (value) { ${e.onValueChanged} },`);
        if (e.onToggled)
            src.push(`${JSON.stringify(e.id + '.toggled')}: function (checked) { ${e.onToggled} },`);
        if (e.onEditingFinished) // `text` in the handler is the element's own
            src.push(`${JSON.stringify(e.id + '.editingFinished')}: function () { var text = ${e.id}.text; ${e.onEditingFinished} },`);
    }
    src.push('};');
    src.push(`var __completed = function () ${completed};`);
    const names = funcs.map((fn) => fn.match(/function\s+(\w+)/)[1]);
    src.push(`({handlers: __handlers, completed: __completed, ${names.join(', ')}})`);
    const state = {};
    const handlers = {};
    const ctx = {
        filter: f, producer, qsTr: (s) => s, decodeURIComponent, Math,
        __element(id) {
            const el = {enabled: true, checked: false, text: '', currentIndex: 0};
            state[id] = el;
            let value = 0;
            Object.defineProperty(el, 'value', {
                get: () => value,
                set: (v) => {
                    if (v !== value) {
                        value = v;
                        if (handlers[id + '.value'])
                            handlers[id + '.value'](v);
                    }
                },
            });
            return el;
        },
    };
    const scope = vm.runInNewContext(src.join('\n'), ctx);
    Object.assign(handlers, scope.handlers);
    f.panel = scope;
    scope.completed();
    f.isNew = false;
    return {scope, el: state, handlers};
}

const producer = {position: 0, in: 0};
function seek(panel, position) {
    producer.position = position;
    if (panel.scope.onPositionChanged)
        panel.scope.onPositionChanged();
}
const buttons = elements.filter((e) => e.kind.endsWith('KeyframesButton'));
const sliders = elements.filter((e) => e.onValueChanged && e.max);

// Which slider and which keyframes button act on each keyframed property: found by
// driving each on a new filter and seeing what it changes.
function changedBy(drive) {
    const f = makeFilter(100);
    const panel = openPanel(f, producer);
    seek(panel, 10);
    const before = new Map(keyed.map((k) => [k, JSON.stringify([f.get(k), f.keys(k) && [...f.keys(k)]])]));
    drive(panel);
    return keyed.filter((k) => JSON.stringify([f.get(k), f.keys(k) && [...f.keys(k)]]) !== before.get(k));
}
for (const k of keyed) {
    // Keyframes already there (a saved project): opening the panel and moving the
    // playhead keep them (the panel before keyframes buttons set the slider's value, read
    // without a position, as a constant over them).
    {
        const f = makeFilter(100);
        f.isNew = false;
        f.set(k, 0.25, 10);
        f.set(k, 0.5, 40);
        const panel = openPanel(f, producer);
        seek(panel, 60);
        check(`'${k}': keyframes made before the panel opened are kept`,
            JSON.stringify([...(f.keys(k) || [])]) === '[[10,0.25],[40,0.5]]');
    }
    const slider = sliders.find((s) => changedBy((p) => { p.el[s.id].value = s.max / 2; }).includes(k));
    const button = buttons.find((b) => changedBy((p) => {
        p.el[b.id].checked = true;
        p.handlers[b.id + '.toggled'](true);
    }).includes(k));
    check(`'${k}': a slider sets it`, !!slider);
    check(`'${k}': a keyframes button keyframes it`, !!button);
    if (!slider || !button)
        continue;
    // The button on at frame 10, then the slider at frame 40: keyframes at 10 and 40, the
    // one at 40 the slider's value (its maximum is the parameter's 1).
    const f = makeFilter(100);
    let panel = openPanel(f, producer);
    seek(panel, 10);
    panel.el[slider.id].value = slider.max / 4;
    panel.el[button.id].checked = true;
    panel.handlers[button.id + '.toggled'](true);
    check(`'${k}': the button makes one keyframe, at the playhead (the Keyframes panel lists it)`,
        f.keyframeCount(k) === 1 && f.keys(k).has(10));
    seek(panel, 40);
    panel.el[slider.id].value = slider.max / 2;
    const keys = f.keys(k);
    check(`'${k}': the slider at frame 40 adds a keyframe there`,
        !!keys && keys.size === 2 && keys.get(10) === 0.25 && keys.get(40) === 0.5);
    // Held keyframes for the strength (a ramp would replay the water every frame), the
    // type Shotcut gives (linear) for the others; the first one too.
    const want = held.includes(k) ? DISCRETE : LINEAR;
    check(`'${k}': its keyframes are ${held.includes(k) ? 'held (discrete)' : 'linear'}`,
        JSON.stringify(f.types(k)) === JSON.stringify([want, want]));
    // Moving the playhead shows the value there and changes nothing.
    seek(panel, 25);
    check(`'${k}': the playhead at 25 shows the value ${held.includes(k) ? 'held from 10' : 'between the keyframes'}`,
        Math.abs(panel.el[slider.id].value / slider.max - (held.includes(k) ? 0.25 : 0.375)) < 1e-9);
    check(`'${k}': the playhead changes no keyframe`, JSON.stringify([...f.keys(k)]) === JSON.stringify([...keys]));
    // The panel opened again over the filter (a saved project): the keyframes stay.
    panel = openPanel(f, producer);
    seek(panel, 60);
    check(`'${k}': a panel opened again keeps the keyframes`,
        !!f.keys(k) && JSON.stringify([...f.keys(k)]) === JSON.stringify([...keys]));
    // A keyframe added from the Keyframes panel, after the last and before the first: there,
    // of the value there and of the same type.
    f.addKeyframeFromPanel(k, 70);
    f.addKeyframeFromPanel(k, 5);
    check(`'${k}': the Keyframes panel adds keyframes (at 5 and 70) of the same type`,
        !!f.keys(k) && f.keys(k).get(70) === 0.5 && f.keys(k).get(5) === 0.25 &&
        JSON.stringify(f.types(k)) === JSON.stringify([want, want, want, want]));
    // Simple animation (animate in, 10 frames): the simple properties get keyframes at 0
    // and 9; the others keep their constant.
    const g = makeFilter(100);
    panel = openPanel(g, producer);
    seek(panel, 50);
    panel.el[slider.id].value = slider.max / 2;
    g.animateIn = 10;
    if (simple.includes(k))
        check(`'${k}': animate in makes keyframes at 0 and 9`,
            !!g.keys(k) && g.keys(k).has(0) && g.keys(k).has(9) && g.keys(k).get(9) === 0.5);
    else
        check(`'${k}': no simple animation: animate in leaves its value`,
            !g.keys(k) && g.getDouble(k) === 0.5);
}
check('the metadata lists keyframed properties', keyed.length > 0);

// The scene field: a path typed there is the resource, the old scene emptied; an older
// project's scene is shown.
{
    const fields = elements.filter((e) => e.onEditingFinished);
    const f = makeFilter(100);
    f.isNew = false;
    f.set('scene', 'old.scene');
    const panel = openPanel(f, producer);
    const shown = fields.find((e) => panel.el[e.id].text === 'old.scene');
    check("an older project's 'scene' is shown in a field", !!shown);
    if (shown) {
        panel.el[shown.id].text = 'sub/rain.scene';
        panel.handlers[shown.id + '.editingFinished']();
        check("the scene field sets 'resource' and empties 'scene'",
            f.get('resource') === 'sub/rain.scene' && f.get('scene') === '');
    }
    // The seed field: its validator takes what the plugin takes, and sets the seed as typed.
    const seedField = fields.find((e) => /paramSeed/.test(e.onEditingFinished));
    check('a field sets the seed', !!seedField);
    if (seedField) {
        panel.el[seedField.id].text = '0x2a';
        panel.handlers[seedField.id + '.editingFinished']();
        check("the seed field sets 'seed' as typed (0x2a)", f.get('seed') === '0x2a');
    }
    const verdicts = seeds ? [...seeds.matchAll(/^seed \[(.*)\] (ok|refused)$/gm)] : [];
    const re = seedField && seedField.regex ? new RegExp('^(?:' + seedField.regex + ')$') : null;
    check('the seed field has a validator', !!re);
    if (seeds)
        check('the plugin\'s verdicts on seeds were read', verdicts.length > 0);
    for (const [, text, verdict] of verdicts) {
        if (re)
            check(`the seed field ${verdict === 'ok' ? 'takes' : 'refuses'} '${text}' as the plugin does`,
                re.test(text) === (verdict === 'ok'));
    }
}
process.exit(failed ? 1 : 0);

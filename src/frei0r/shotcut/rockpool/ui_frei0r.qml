// The panel of rockpool's frei0r filter in Shotcut: a scene file picker, the seed, the
// layer, the error frame, the light's doubles and the strength (0..1 to MLT, shown in their
// units) and the time offset, as rockpool-frei0r(7) PARAMETERS describes them. Written after
// Shotcut's own frei0r filters with keyframes (src/qml/filters/sharpen/ui_frei0r.qml):
// Shotcut's Keyframes panel lists a parameter only once it has keyframes, which only the
// panel's keyframes buttons make; a slider sets its value at the playhead when its button
// is on, the whole parameter when off, and the simple animation (animate in and out) of
// the light's four doubles. The strength has no simple animation (a ramp replays the water
// from step 0 every frame: rockpool-frei0r(7)), and its keyframes are held (discrete):
// Shotcut makes a parameter's first keyframe linear (QmlFilter::getKeyframeType, with no
// animation yet) and each later one of the type of the keyframe before it, so the panel
// writes the strength's first keyframe as MLT's animation string, "frame|=value", and those
// after it, from the slider or the Keyframes panel, are held too. Not run here (no display).
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Shotcut.Controls as Shotcut

Item {
    id: panel

    // the scene file as 'resource', the name MLT's XML reader makes absolute again (a
    // path in the project's folder is saved relative to it: rockpool-frei0r(7)); 'scene',
    // the plugin's first parameter, read from older projects and cleared when set here
    property string paramScene: 'resource'
    property string paramOldScene: 'scene'
    property string paramUnit: 'time unit'
    property string paramLayer: 'layer'
    property string paramSeed: 'seed'
    property string paramErrorFrame: 'error frame'
    property string paramDepth: 'depth'
    property string paramAzimuth: 'azimuth'
    property string paramElevation: 'elevation'
    property string paramCaustics: 'caustics'
    property string paramOffset: 'time offset'
    property string paramStrength: 'strength'
    property var defaultParameters: [paramScene, paramOldScene, paramLayer, paramSeed, paramErrorFrame, paramDepth, paramAzimuth, paramElevation, paramCaustics, paramOffset, paramStrength]
    // the keyframeable doubles, their sliders' scales (slider value = parameter x scale),
    // and which of them take the simple animation (meta_frei0r.qml's simpleProperties)
    property var keyParameters: [paramDepth, paramAzimuth, paramElevation, paramCaustics, paramStrength]
    property var keyScales: [64, 360, 90, 4, 4]
    property var keySimple: [true, true, true, true, false]
    property var keyHeld: [false, false, false, false, true]
    property bool blockUpdate: true
    property var startValues: [0, 0, 0, 0, 0]
    property var middleValues: [0, 0, 0, 0, 0]
    property var endValues: [0, 0, 0, 0, 0]

    function keySlider(index) {
        return [depthSlider, azimuthSlider, elevationSlider, causticsSlider, strengthSlider][index];
    }

    function keyButton(index) {
        return [depthKeyframesButton, azimuthKeyframesButton, elevationKeyframesButton, causticsKeyframesButton, strengthKeyframesButton][index];
    }

    // A keyframe of keyParameters[index] at position. A held parameter's first keyframe is
    // written as "position|=value" (discrete), the value as MLT formats it (its numeric
    // locale): set as a number, then read back as text.
    function setKeyframe(index, value, position) {
        var parameter = keyParameters[index];
        if (keyHeld[index] && filter.keyframeCount(parameter) <= 0) {
            filter.set(parameter, value);
            filter.set(parameter, position + '|=' + filter.get(parameter));
        } else {
            filter.set(parameter, value, position);
        }
    }

    // The scene file: as resource, the old scene parameter emptied (it would be the scene
    // again once resource is emptied).
    function setScene(path) {
        filter.set(paramOldScene, '');
        filter.set(paramScene, path);
    }

    function simpleAnimation() {
        return filter.animateIn > 0 || filter.animateOut > 0;
    }

    function initSimpleAnimation() {
        for (var i = 0; i < keyParameters.length; i++) {
            middleValues[i] = filter.getDouble(keyParameters[i], filter.animateIn);
            if (filter.animateIn > 0)
                startValues[i] = filter.getDouble(keyParameters[i], 0);
            if (filter.animateOut > 0)
                endValues[i] = filter.getDouble(keyParameters[i], filter.duration - 1);
        }
    }

    function getPosition() {
        return Math.max(producer.position - (filter.in - producer.in), 0);
    }

    function setControls() {
        var position = getPosition();
        blockUpdate = true;
        sceneField.text = filter.get(paramScene) !== '' ? filter.get(paramScene) : filter.get(paramOldScene);
        seedField.text = filter.get(paramSeed);
        layerCombo.currentIndex = filter.get(paramLayer) === 'light' ? 1 : 0;
        errorCheck.checked = filter.getDouble(paramErrorFrame) >= 0.5;
        offsetSlider.value = filter.getDouble(paramOffset) * 3600;
        var enabled = position <= 0 || (position >= (filter.animateIn - 1) && position <= (filter.duration - filter.animateOut)) || position >= (filter.duration - 1);
        for (var i = 0; i < keyParameters.length; i++) {
            keySlider(i).value = filter.getDouble(keyParameters[i], position) * keyScales[i];
            keyButton(i).checked = !simpleAnimation() && filter.keyframeCount(keyParameters[i]) > 0;
            keySlider(i).enabled = enabled || !keySimple[i];
        }
        blockUpdate = false;
    }

    // A keyframeable double's slider moved (position: the playhead's, or null when the
    // filter's length or simple animation changed).
    function updateFilter(index, position) {
        if (blockUpdate)
            return;
        var parameter = keyParameters[index];
        var value = keySlider(index).value / keyScales[index];
        var button = keyButton(index);
        if (position !== null) {
            if (keySimple[index] && position <= 0 && filter.animateIn > 0)
                startValues[index] = value;
            else if (keySimple[index] && position >= filter.duration - 1 && filter.animateOut > 0)
                endValues[index] = value;
            else
                middleValues[index] = value;
        }
        if (keySimple[index] && simpleAnimation()) {
            filter.resetProperty(parameter);
            button.checked = false;
            if (filter.animateIn > 0) {
                filter.set(parameter, startValues[index], 0);
                filter.set(parameter, middleValues[index], filter.animateIn - 1);
            }
            if (filter.animateOut > 0) {
                filter.set(parameter, middleValues[index], filter.duration - filter.animateOut);
                filter.set(parameter, endValues[index], filter.duration - 1);
            }
        } else if (!button.checked) {
            filter.resetProperty(parameter);
            filter.set(parameter, middleValues[index]);
        } else if (position !== null) {
            setKeyframe(index, value, position);
        }
    }

    function onKeyframesButtonClicked(index, checked) {
        var parameter = keyParameters[index];
        var value = keySlider(index).value / keyScales[index];
        if (checked) {
            blockUpdate = true;
            if (keySimple[index] && simpleAnimation()) {
                for (var i = 0; i < keyParameters.length; i++) {
                    if (keySimple[i])
                        filter.resetProperty(keyParameters[i]);
                }
                filter.animateIn = filter.animateOut = 0;
            } else {
                filter.clearSimpleAnimation(parameter);
            }
            for (var j = 0; j < keyParameters.length; j++)
                keySlider(j).enabled = true;
            blockUpdate = false;
            setKeyframe(index, value, getPosition());
        } else {
            filter.resetProperty(parameter);
            filter.set(parameter, value);
        }
    }

    function updateSimpleAnimation() {
        setControls();
        for (var i = 0; i < keyParameters.length; i++) {
            if (keySimple[i])
                updateFilter(i, null);
        }
    }

    width: 350
    height: 400
    Component.onCompleted: {
        filter.set(paramUnit, 's');
        if (filter.isNew) {
            filter.set(paramScene, '');
            filter.set(paramOldScene, '');
            filter.set(paramLayer, 'render');
            filter.set(paramSeed, '');
            filter.set(paramErrorFrame, 1);
            filter.set(paramDepth, 0);
            filter.set(paramAzimuth, 0);
            filter.set(paramElevation, 0);
            filter.set(paramCaustics, 0);
            filter.set(paramOffset, 0);
            filter.set(paramStrength, 0);
            filter.savePreset(defaultParameters);
        } else {
            initSimpleAnimation();
        }
        setControls();
    }

    FileDialog {
        id: sceneDialog
        title: qsTr('Open a rockpool scene')
        nameFilters: [qsTr('rockpool scenes (*.scene)'), qsTr('All files (*)')]
        onAccepted: {
            var path = selectedFile.toString().replace(/^file:\/\//, '');
            sceneField.text = decodeURIComponent(path);
            setScene(sceneField.text);
        }
    }

    GridLayout {
        columns: 4
        anchors.fill: parent
        anchors.margins: 8

        Label { text: qsTr('Scene'); Layout.alignment: Qt.AlignRight }
        TextField {
            id: sceneField
            Layout.fillWidth: true
            placeholderText: qsTr('empty: the built-in rain')
            onEditingFinished: setScene(text)
        }
        Button { text: qsTr('Open...'); onClicked: sceneDialog.open() }
        Item { width: 1 }

        Label { text: qsTr('Seed'); Layout.alignment: Qt.AlignRight }
        TextField {
            id: seedField
            Layout.fillWidth: true
            placeholderText: qsTr("empty: the scene's")
            // what the plugin takes (as --seed): empty, or a whole number 0..2^64-1, an
            // optional '+', decimal digits or hexadecimal ones after 0x or 0X (leading
            // zeros allowed); the decimal alternatives spell out 18446744073709551615
            validator: RegularExpressionValidator { regularExpression: /(\+?(0[xX]0*[0-9a-fA-F]{1,16}|0*([0-9]{1,19}|1[0-7][0-9]{18}|18[0-3][0-9]{17}|184[0-3][0-9]{16}|1844[0-5][0-9]{15}|18446[0-6][0-9]{14}|184467[0-3][0-9]{13}|1844674[0-3][0-9]{12}|184467440[0-6][0-9]{10}|1844674407[0-2][0-9]{9}|18446744073[0-6][0-9]{8}|1844674407370[0-8][0-9]{6}|18446744073709[0-4][0-9]{5}|184467440737095[0-4][0-9]{4}|18446744073709550[0-9]{3}|18446744073709551[0-5][0-9]{2}|1844674407370955160[0-9]|1844674407370955161[0-4]|18446744073709551615)))?/ }
            onEditingFinished: filter.set(paramSeed, text)
        }
        Item { width: 1 }
        Item { width: 1 }

        Label { text: qsTr('Layer'); Layout.alignment: Qt.AlignRight }
        ComboBox {
            id: layerCombo
            Layout.fillWidth: true
            model: [qsTr('Water over the clip'), qsTr('Light layer alone')]
            onActivated: filter.set(paramLayer, currentIndex === 1 ? 'light' : 'render')
        }
        Item { width: 1 }
        Item { width: 1 }

        Label { text: qsTr('Errors'); Layout.alignment: Qt.AlignRight }
        CheckBox {
            id: errorCheck
            text: qsTr('Stripe the frame')
            onClicked: filter.set(paramErrorFrame, checked ? 1 : 0)
        }
        Item { width: 1 }
        Item { width: 1 }

        Label { text: qsTr('Depth'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: depthSlider
            minimumValue: 0; maximumValue: 64; decimals: 2; suffix: qsTr(' cells')
            onValueChanged: updateFilter(0, getPosition())
        }
        Shotcut.UndoButton { onClicked: depthSlider.value = 0 }
        Shotcut.KeyframesButton {
            id: depthKeyframesButton
            onToggled: onKeyframesButtonClicked(0, checked)
        }

        Label { text: qsTr('Sun azimuth'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: azimuthSlider
            minimumValue: 0; maximumValue: 360; decimals: 1; suffix: qsTr(' °')
            onValueChanged: updateFilter(1, getPosition())
        }
        Shotcut.UndoButton { onClicked: azimuthSlider.value = 0 }
        Shotcut.KeyframesButton {
            id: azimuthKeyframesButton
            onToggled: onKeyframesButtonClicked(1, checked)
        }

        Label { text: qsTr('Sun elevation'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: elevationSlider
            minimumValue: 0; maximumValue: 90; decimals: 1; suffix: qsTr(' °')
            onValueChanged: updateFilter(2, getPosition())
        }
        Shotcut.UndoButton { onClicked: elevationSlider.value = 0 }
        Shotcut.KeyframesButton {
            id: elevationKeyframesButton
            onToggled: onKeyframesButtonClicked(2, checked)
        }

        Label { text: qsTr('Caustics'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: causticsSlider
            minimumValue: 0; maximumValue: 4; decimals: 3
            onValueChanged: updateFilter(3, getPosition())
        }
        Shotcut.UndoButton { onClicked: causticsSlider.value = 0 }
        Shotcut.KeyframesButton {
            id: causticsKeyframesButton
            onToggled: onKeyframesButtonClicked(3, checked)
        }

        Label { text: qsTr('Strength'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: strengthSlider
            // a changed strength replays the water from the start: held keyframes
            // (rockpool-frei0r(7), setKeyframe)
            minimumValue: 0; maximumValue: 4; decimals: 3
            onValueChanged: updateFilter(4, getPosition())
        }
        Shotcut.UndoButton { onClicked: strengthSlider.value = 0 }
        Shotcut.KeyframesButton {
            id: strengthKeyframesButton
            onToggled: onKeyframesButtonClicked(4, checked)
        }

        Label { text: qsTr('Time offset'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: offsetSlider
            minimumValue: 0; maximumValue: 3600; decimals: 3; suffix: qsTr(' s')
            onValueChanged: if (!blockUpdate) filter.set(paramOffset, value / 3600)
        }
        Shotcut.UndoButton { onClicked: offsetSlider.value = 0 }
        Item { width: 1 }

        Item { Layout.fillHeight: true }
    }

    Connections {
        function onChanged() {
            setControls();
        }

        function onInChanged() {
            updateSimpleAnimation();
        }

        function onOutChanged() {
            updateSimpleAnimation();
        }

        function onAnimateInChanged() {
            updateSimpleAnimation();
        }

        function onAnimateOutChanged() {
            updateSimpleAnimation();
        }

        function onPropertyChanged(name) {
            setControls();
        }

        target: filter
    }

    Connections {
        function onPositionChanged() {
            setControls();
        }

        target: producer
    }
}

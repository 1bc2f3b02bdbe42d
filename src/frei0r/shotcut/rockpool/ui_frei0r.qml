// The panel of rockpool's frei0r filter in Shotcut: a scene file picker, the seed, the
// layer, the error frame, the light's doubles and the strength (0..1 to MLT, shown in their units), as
// rockpool-frei0r(7) PARAMETERS describes them. Written after Shotcut's own frei0r
// filters; not run here (no display).
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Shotcut.Controls as Shotcut

Item {
    property string paramScene: 'scene'
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
    property var defaultParameters: [paramScene, paramLayer, paramSeed, paramErrorFrame, paramDepth, paramAzimuth, paramElevation, paramCaustics, paramOffset, paramStrength]

    function setControls() {
        sceneField.text = filter.get(paramScene);
        seedField.text = filter.get(paramSeed);
        layerCombo.currentIndex = filter.get(paramLayer) === 'light' ? 1 : 0;
        errorCheck.checked = filter.getDouble(paramErrorFrame) >= 0.5;
        depthSlider.value = filter.getDouble(paramDepth) * 64;
        azimuthSlider.value = filter.getDouble(paramAzimuth) * 360;
        elevationSlider.value = filter.getDouble(paramElevation) * 90;
        causticsSlider.value = filter.getDouble(paramCaustics) * 4;
        offsetSlider.value = filter.getDouble(paramOffset) * 3600;
        strengthSlider.value = filter.getDouble(paramStrength) * 4;
    }

    width: 350
    height: 400
    Component.onCompleted: {
        filter.set(paramUnit, 's');
        if (filter.isNew) {
            filter.set(paramScene, '');
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
            filter.set(paramScene, sceneField.text);
        }
    }

    GridLayout {
        columns: 3
        anchors.fill: parent
        anchors.margins: 8

        Label { text: qsTr('Scene'); Layout.alignment: Qt.AlignRight }
        TextField {
            id: sceneField
            Layout.fillWidth: true
            placeholderText: qsTr('empty: the built-in rain')
            onEditingFinished: filter.set(paramScene, text)
        }
        Button { text: qsTr('Open...'); onClicked: sceneDialog.open() }

        Label { text: qsTr('Seed'); Layout.alignment: Qt.AlignRight }
        TextField {
            id: seedField
            Layout.fillWidth: true
            placeholderText: qsTr("empty: the scene's")
            validator: RegularExpressionValidator { regularExpression: /[0-9]{0,20}/ }
            onEditingFinished: filter.set(paramSeed, text)
        }
        Item { width: 1 }

        Label { text: qsTr('Layer'); Layout.alignment: Qt.AlignRight }
        ComboBox {
            id: layerCombo
            Layout.fillWidth: true
            model: [qsTr('Water over the clip'), qsTr('Light layer alone')]
            onActivated: filter.set(paramLayer, currentIndex === 1 ? 'light' : 'render')
        }
        Item { width: 1 }

        Label { text: qsTr('Errors'); Layout.alignment: Qt.AlignRight }
        CheckBox {
            id: errorCheck
            text: qsTr('Stripe the frame')
            onClicked: filter.set(paramErrorFrame, checked ? 1 : 0)
        }
        Item { width: 1 }

        Label { text: qsTr('Depth'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: depthSlider
            minimumValue: 0; maximumValue: 64; decimals: 2; suffix: qsTr(' cells')
            onValueChanged: filter.set(paramDepth, value / 64)
        }
        Shotcut.UndoButton { onClicked: depthSlider.value = 0 }

        Label { text: qsTr('Sun azimuth'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: azimuthSlider
            minimumValue: 0; maximumValue: 360; decimals: 1; suffix: qsTr(' °')
            onValueChanged: filter.set(paramAzimuth, value / 360)
        }
        Shotcut.UndoButton { onClicked: azimuthSlider.value = 0 }

        Label { text: qsTr('Sun elevation'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: elevationSlider
            minimumValue: 0; maximumValue: 90; decimals: 1; suffix: qsTr(' °')
            onValueChanged: filter.set(paramElevation, value / 90)
        }
        Shotcut.UndoButton { onClicked: elevationSlider.value = 0 }

        Label { text: qsTr('Caustics'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: causticsSlider
            minimumValue: 0; maximumValue: 4; decimals: 3
            onValueChanged: filter.set(paramCaustics, value / 4)
        }
        Shotcut.UndoButton { onClicked: causticsSlider.value = 0 }

        Label { text: qsTr('Strength'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: strengthSlider
            // a changed strength replays the water from the start (rockpool-frei0r(7))
            minimumValue: 0; maximumValue: 4; decimals: 3
            onValueChanged: filter.set(paramStrength, value / 4)
        }
        Shotcut.UndoButton { onClicked: strengthSlider.value = 0 }

        Label { text: qsTr('Time offset'); Layout.alignment: Qt.AlignRight }
        Shotcut.SliderSpinner {
            id: offsetSlider
            minimumValue: 0; maximumValue: 3600; decimals: 3; suffix: qsTr(' s')
            onValueChanged: filter.set(paramOffset, value / 3600)
        }
        Shotcut.UndoButton { onClicked: offsetSlider.value = 0 }

        Item { Layout.fillHeight: true }
    }
}

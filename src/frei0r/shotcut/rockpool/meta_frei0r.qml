// rockpool's frei0r filter in Shotcut (rockpool-frei0r(7) "Shotcut"): copy this directory
// to Shotcut's share/shotcut/qml/filters/. Properties are the plugin's parameter names.
import QtQuick
import org.shotcut.qml

Metadata {
    type: Metadata.Filter
    name: qsTr("Rockpool Water")
    keywords: qsTr('water ripples rain caustics', 'search keywords for the Rockpool Water filter') + ' rockpool #rgba'
    mlt_service: "frei0r.rockpool"
    qml: "ui_frei0r.qml"

    keyframes {
        allowAnimateIn: true
        allowAnimateOut: true
        simpleProperties: ['depth', 'azimuth', 'elevation', 'caustics']
        parameters: [
            Parameter {
                name: qsTr('Depth')
                property: 'depth'
                isCurve: true
                minimum: 0
                maximum: 1
            },
            Parameter {
                name: qsTr('Sun azimuth')
                property: 'azimuth'
                isCurve: true
                minimum: 0
                maximum: 1
            },
            Parameter {
                name: qsTr('Sun elevation')
                property: 'elevation'
                isCurve: true
                minimum: 0
                maximum: 1
            },
            Parameter {
                name: qsTr('Caustics')
                property: 'caustics'
                isCurve: true
                minimum: 0
                maximum: 1
            },
            // a curve, so Shotcut's Keyframes panel adds its keyframes itself, of the type of
            // the one before (held: ui_frei0r.qml setKeyframe); a parameter that is not a
            // curve gets none from there without a handler in the panel
            Parameter {
                name: qsTr('Strength')
                property: 'strength'
                isCurve: true
                minimum: 0
                maximum: 1
            }
        ]
    }
}

#!/usr/bin/env python3
"""Record real Bluetooth LE HCI captures (btsnoop, datalink 1002 = H4) with Bumble.

Usage:
    python3 Captures/record.py [OUTDIR] [--only NAME.btsnoop ...]
    python3 Captures/record.py --pklg-notes SOURCE.pklg DESTINATION.pklg

OUTDIR defaults to the folder holding this script (Captures/).

How it works
------------
Google's Bumble (https://github.com/google/bumble) is a complete BLE host stack
written in Python.  It also ships a *virtual* controller
(``bumble.controller.Controller``) and an in-process radio
(``bumble.link.LocalLink``).  For every scenario this script builds:

    central Device --Host--[snooper]-- Controller --+
                                                    |  LocalLink (in-process "air")
    peripheral Device --Host------- Controller -----+

Each Device talks real HCI (H4 packets as bytes) to its own Controller, so the
traffic between the central's host and the central's controller is real HCI as
produced and consumed by an independent implementation.  A
``bumble.snoop.BtSnooper`` is attached to one host (``Host.snooper``): the
CENTRAL's, except in the ``peripheral-*`` scenarios and unconfirmed-indication,
which record the PERIPHERAL's (this host is then the GATT server a remote
central uses).  It
records every packet the host sends to its controller (commands,
host->controller ACL) and every packet it receives (events, controller->host
ACL).  The other host is not recorded.  In peer-also-client and
peripheral-and-client the central also runs a GATT server of its own
(``make_rig(central_services=...)``), and each side is a client of the other.

pklg-header-notes.pklg is derived: ``bletrace convert`` of
pklg-header-notes.btsnoop, then ``--pklg-notes`` puts iOS-style header notes
in front (``prepend_pklg_notes``; ``make captures`` runs both steps).

Determinism
-----------
Everything is fixed: addresses, GATT database, values, order of operations.
The scenario timing is controlled with ``asyncio.sleep`` so relative timing is
stable from run to run (to within event-loop jitter, typically < 5 ms).  The
only thing that changes between runs is the absolute wall-clock time that
BtSnooper stamps on each record when it writes it, and, in the scenarios that
pair (pairing-retry, pairing-midway, pairing-cancelled), the SMP values Bumble
draws at random: public keys, confirm and random values, DHKey checks, the LTK.

Only Bumble and the Python standard library are used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

import bumble
from bumble import hci
from bumble.att import (
    ATT_CID,
    ATT_Error,
    ATT_Error_Response,
    ATT_Read_By_Group_Type_Request,
    ATT_Read_By_Type_Request,
    Attribute,
)
from bumble.controller import Controller
from bumble.core import UUID, AdvertisingData, ConnectionParameterUpdateError, ProtocolError
from bumble import l2cap, ll
from bumble.device import Connection, Device, Peer
from bumble.keys import MemoryKeyStore, PairingKeys
from bumble.gatt import (
    GATT_CHARACTERISTIC_ATTRIBUTE_TYPE,
    GATT_PRIMARY_SERVICE_ATTRIBUTE_TYPE,
    GATT_SERVICE_CHANGED_CHARACTERISTIC,
    Characteristic,
    CharacteristicValue,
    Service,
)
from bumble.host import Host
from bumble.link import LocalLink
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.smp import SMP_PASSKEY_ENTRY_FAILED_ERROR
from bumble.snoop import BtSnooper, PcapSnooper, Snooper
from bumble.transport.common import AsyncPipeSink

# -----------------------------------------------------------------------------
# Fixed identities
# -----------------------------------------------------------------------------
# Both are *static random* addresses (two most significant bits set), which is
# what Bumble's Device uses by default (own_address_type = RANDOM).
CENTRAL_ADDRESS = hci.Address('C0:00:00:00:00:01')
PERIPHERAL_ADDRESS = hci.Address('F0:F1:F2:F3:F4:05')
# An address that nobody on the virtual link owns or advertises at.
ABSENT_ADDRESS = hci.Address('D0:00:00:00:00:99')

CENTRAL_NAME = 'bletrace-central'
PERIPHERAL_NAME = 'bletrace-hr'

# ATT MTU the central asks for (typical of phones) and the largest MTU the
# peripheral's GATT server is willing to accept.
CLIENT_MTU = 247
SERVER_MAX_MTU = 247

# Peripheral advertising interval in ms.  Bumble's virtual controller fires its
# advertising timer every `HCI interval units / 1000` s, so 100 ms (=160 units)
# makes it emit an ADV_IND every 0.16 s; a pending LE Create Connection completes
# on the next ADV_IND it "hears".
ADVERTISING_INTERVAL_MS = 100

# HCI error codes used as disconnection reasons.
CONNECTION_TIMEOUT = hci.HCI_ErrorCode.CONNECTION_TIMEOUT_ERROR  # 0x08
REMOTE_USER_TERMINATED = (
    hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR  # 0x13
)

# -----------------------------------------------------------------------------
# Fixed GATT database
# -----------------------------------------------------------------------------
HEART_RATE_SERVICE = UUID.from_16_bits(0x180D, 'Heart Rate')
HEART_RATE_MEASUREMENT = UUID.from_16_bits(0x2A37, 'Heart Rate Measurement')
BODY_SENSOR_LOCATION = UUID.from_16_bits(0x2A38, 'Body Sensor Location')
HEART_RATE_CONTROL_POINT = UUID.from_16_bits(0x2A39, 'Heart Rate Control Point')

# A custom 128-bit service with one read/write characteristic.
CUSTOM_SERVICE = UUID('0000AAA0-0000-1000-8000-00805F9B34FB')
CUSTOM_CONFIG = UUID('0000AAA1-0000-1000-8000-00805F9B34FB')

# A service used only by the att-errors scenario: every characteristic fails
# in a different, documented way.
ERRORS_SERVICE = UUID('0000EEE0-0000-1000-8000-00805F9B34FB')
ERR_READ_NOT_PERMITTED = UUID('0000EEE1-0000-1000-8000-00805F9B34FB')
ERR_WRITE_NOT_PERMITTED = UUID('0000EEE2-0000-1000-8000-00805F9B34FB')
ERR_WRITE_NEEDS_AUTH = UUID('0000EEE3-0000-1000-8000-00805F9B34FB')
ERR_WRITE_APP_ERROR = UUID('0000EEE4-0000-1000-8000-00805F9B34FB')
# service-changed: a service the peripheral adds after the standard ones (handles 0x0019-0x001B)
# and removes while connected.
REMOVED_SERVICE = UUID('0000DDD0-0000-1000-8000-00805F9B34FB')
REMOVED_CHARACTERISTIC = UUID('0000DDD1-0000-1000-8000-00805F9B34FB')
REMOVED_VALUE = b'old value'
SERVICE_CHANGED_VALUE_HANDLE = 0x0008
# bonded-database-changed: the service a firmware update puts in the Heart Rate service's place.
UPDATED_SERVICE = UUID('0000AAB0-0000-1000-8000-00805F9B34FB')
UPDATED_CHARACTERISTIC = UUID('0000AAB1-0000-1000-8000-00805F9B34FB')
UPDATED_VALUE = b'v2'


# Fixed values.
HRM_INITIAL = bytes([0x00, 72])  # flags=0 (UINT8 bpm), 72 bpm
HRM_NOTIFICATIONS = [bytes([0x00, bpm]) for bpm in (72, 73, 74)]
HRM_AFTER_RECONNECT = bytes([0x00, 80])
BODY_SENSOR_LOCATION_VALUE = bytes([0x01])  # Chest
CONTROL_POINT_RESET = bytes([0x01])  # Reset Energy Expended
CUSTOM_CONFIG_INITIAL = b'bletrace'
# 40 bytes: the Write Request (43-byte ATT PDU, 47-byte L2CAP frame) does not
# fit in the virtual controller's 27-byte LE ACL buffers, so the host sends it
# as two HCI ACL fragments; the Read Response comes back unfragmented.
CUSTOM_CONFIG_WRITTEN = bytes(range(0x40, 0x40 + 40))
# The peripheral-side scenarios' extra service (after the error service, so the
# handles above do not move): one characteristic written without response.
PERIPHERAL_SERVICE = UUID('0000BBB0-0000-1000-8000-00805F9B34FB')
PERIPHERAL_COMMAND = UUID('0000BBB1-0000-1000-8000-00805F9B34FB')
COMMAND_WITHOUT_RESPONSE = bytes([0x10, 0x20, 0x30])
# Notifications streamed until the central hangs up, 50 ms apart.
STREAM_PERIOD_S = 0.05
STREAM_BEFORE_DISCONNECT = 5

# Handle that does not exist in the database (the database ends well below).
NONEXISTENT_HANDLE = 0x00F0

# Application error code raised by a write callback (0x80..0x9F are reserved
# for the application).
APP_ERROR = 0x80

# The central's own GATT server (scenarios peer-also-client and
# peripheral-and-client), as a phone has one: Bumble's GAP and GATT services
# (0x0001-0x000D, Service Changed value 0x0008, CCCD 0x0009), then this custom
# service at 0x000E-0x0013: CCC1 read (value 0x0010), CCC2 notify/indicate
# (value 0x0012, CCCD 0x0013).  The handles overlap the peripheral's on purpose:
# 0x0010 is CCC1 on the central and HR Measurement on the peripheral.
PHONE_SERVICE = UUID('0000CCC0-0000-1000-8000-00805F9B34FB')
PHONE_STATUS = UUID('0000CCC1-0000-1000-8000-00805F9B34FB')
PHONE_ALERT = UUID('0000CCC2-0000-1000-8000-00805F9B34FB')
PHONE_STATUS_VALUE = b'phone-ok'
PHONE_ALERT_INITIAL = bytes([0x00])
PHONE_ALERTS = [bytes([0xA1]), bytes([0xA2])]
# The range the central's Service Changed indication names: its custom service.
PHONE_SERVICE_RANGE = (0x000E, 0x0013)
# A handle the central's server does not have (its database ends at 0x0013).
PHONE_MISSING_HANDLE = 0x0040
PHONE_MISSING_WRITE = bytes([0x01, 0x02])

# reconnect-answers-differ: what the peripheral answers on each connection.
# Body Sensor Location 0x0013 reads `01` (Chest) on connection 1, `02` (Wrist)
# on connection 2, and fails with Unlikely Error on connection 3; the CCCD
# 0x0011 refuses the subscription with Insufficient Authorization on connection
# 1 and accepts it on connection 2.
BODY_SENSOR_LOCATION_SECOND = bytes([0x02])
INSUFFICIENT_AUTHORIZATION = 0x08
UNLIKELY_ERROR = 0x0E

# pklg-header-notes: the note records iOS writes at the head of the PacketLogger
# file of a sysdiagnose (see Formats/pklg.md and the shared public elkusbry-peripage.pklg),
# stamped this long before the first HCI record (3 days, 5 h, 17 min, 42.250 s).
PKLG_NOTES = [
    'Product: iPhone17,1',
    'Firmware Version: 23.5.218.1220',
    'Chipset: BCM_4399, Revision: s=C2',
    'Transport: PCIe',
    'Address: C0:00:00:00:00:01',
    'Bluetooth Host: MobileBluetooth-195.7.1.2',
    'OS Version: 26.1 (23B85)',
]
PKLG_NOTES_LEAD_US = ((3 * 24 + 5) * 3600 + 17 * 60) * 1_000_000 + 42_250_000
PKLG_NOTE_TYPE = 0xFC

# Pairing in the middle of a connection, Bluetooth powering off while a
# request is pending, an indication that is never confirmed.
#
# pairing-midway: a service after the error service (0x0022-0x0024) whose one
# characteristic can be read only over an encrypted link (Insufficient
# Encryption, 0x0F, from Bumble's own permission check until the link is).
ENCRYPTED_SERVICE = UUID('0000E0C0-0000-1000-8000-00805F9B34FB')
ENCRYPTED_SECRET = UUID('0000E0C1-0000-1000-8000-00805F9B34FB')
ENCRYPTED_SECRET_VALUE = b'secret'
INSUFFICIENT_AUTHENTICATION = 0x05
INSUFFICIENT_ENCRYPTION = 0x0F
# pairing-cancelled: the user is shown the passkey prompt and taps Cancel after
# this long; the central hangs up this long after its Pairing Failed.
PASSKEY_PROMPT_S = 1.0
HANG_UP_AFTER_CANCEL_S = 0.05
# The passkey the peripheral displays (fixed, so that nothing in the rig is
# random but the SMP keys).
PERIPHERAL_PASSKEY = 123456
# power-off-pending: the peripheral answers reads of Body Sensor Location this
# late; Bluetooth powers off this long after the central's Read Request.
SLOW_READ_S = 1.0
POWER_OFF_AFTER_S = 0.3
# What a host sends for each link when its own Bluetooth powers off.
POWER_OFF = hci.HCI_ErrorCode.REMOTE_DEVICE_TERMINATED_CONNECTION_DUE_TO_POWER_OFF_ERROR  # 0x15
# unconfirmed-indication: a service after the custom one (0x0019-0x001C) with a
# read/indicate characteristic (value 0x001B, CCCD 0x001C).
INDICATE_SERVICE = UUID('0000A1A0-0000-1000-8000-00805F9B34FB')
INDICATE_STATUS = UUID('0000A1A1-0000-1000-8000-00805F9B34FB')
INDICATE_STATUS_INITIAL = bytes([0x00])
INDICATE_STATUS_CHANGED = bytes([0x01])


def build_gatt_database(
    with_error_service: bool, with_peripheral_service: bool = False
) -> dict[str, object]:
    """Return the peripheral's services and the characteristics we refer to.

    Bumble itself adds the GAP (0x1800) and GATT (0x1801) services in front of
    these, so attribute handles are assigned in this fixed order:
    GAP, GATT, Heart Rate, custom 0xAAA0, [errors 0xEEE0].
    """
    hrm = Characteristic(
        HEART_RATE_MEASUREMENT,
        Characteristic.Properties.NOTIFY,
        Attribute.Permissions.READABLE,
        HRM_INITIAL,
    )  # Bumble adds the CCCD (0x2902) automatically for NOTIFY characteristics
    body_sensor_location = Characteristic(
        BODY_SENSOR_LOCATION,
        Characteristic.Properties.READ,
        Attribute.Permissions.READABLE,
        BODY_SENSOR_LOCATION_VALUE,
    )
    control_point = Characteristic(
        HEART_RATE_CONTROL_POINT,
        Characteristic.Properties.WRITE,
        Attribute.Permissions.WRITEABLE,
        bytes([0x00]),
    )
    custom_config = Characteristic(
        CUSTOM_CONFIG,
        Characteristic.Properties.READ | Characteristic.Properties.WRITE,
        Attribute.Permissions.READABLE | Attribute.Permissions.WRITEABLE,
        CUSTOM_CONFIG_INITIAL,
    )
    services = [
        Service(HEART_RATE_SERVICE, [hrm, body_sensor_location, control_point]),
        Service(CUSTOM_SERVICE, [custom_config]),
    ]
    result: dict[str, object] = {
        'services': services,
        'hrm': hrm,
        'custom_config': custom_config,
    }

    if with_error_service:
        # NOTE: Bumble's GATT server does not enforce the READABLE/WRITEABLE
        # permission bits (its code has "TODO: check permissions"), so "not
        # permitted" errors are raised by the value callbacks, the way an
        # application would.  Insufficient Authentication, on the other hand,
        # is produced by Bumble's own permission check because the link is not
        # authenticated (no pairing happens in these scenarios).
        def refuse_read(_connection):
            raise ATT_Error(0x02)  # Read Not Permitted

        def refuse_write(_connection, _value):
            raise ATT_Error(0x03)  # Write Not Permitted

        def app_error_write(_connection, _value):
            raise ATT_Error(APP_ERROR)  # application error 0x80

        errors = Service(
            ERRORS_SERVICE,
            [
                Characteristic(
                    ERR_READ_NOT_PERMITTED,
                    Characteristic.Properties.READ,
                    Attribute.Permissions.READABLE,
                    CharacteristicValue(read=refuse_read),
                ),
                Characteristic(
                    ERR_WRITE_NOT_PERMITTED,
                    Characteristic.Properties.WRITE,
                    Attribute.Permissions.WRITEABLE,
                    CharacteristicValue(write=refuse_write),
                ),
                Characteristic(
                    ERR_WRITE_NEEDS_AUTH,
                    Characteristic.Properties.WRITE,
                    Attribute.Permissions.WRITEABLE
                    | Attribute.Permissions.WRITE_REQUIRES_AUTHENTICATION,
                    bytes([0x00]),
                ),
                Characteristic(
                    ERR_WRITE_APP_ERROR,
                    Characteristic.Properties.WRITE,
                    Attribute.Permissions.WRITEABLE,
                    CharacteristicValue(write=app_error_write),
                ),
            ],
        )
        services.append(errors)

    if with_peripheral_service:
        written: list[bytes] = []
        result['written_without_response'] = written

        def record_command(_connection, value):
            written.append(bytes(value))

        services.append(
            Service(
                PERIPHERAL_SERVICE,
                [
                    Characteristic(
                        PERIPHERAL_COMMAND,
                        Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
                        Attribute.Permissions.WRITEABLE,
                        CharacteristicValue(write=record_command),
                    )
                ],
            )
        )
    return result


def build_phone_database() -> dict[str, object]:
    """The central's custom service (after Bumble's GAP and GATT services)."""
    status = Characteristic(
        PHONE_STATUS,
        Characteristic.Properties.READ,
        Attribute.Permissions.READABLE,
        PHONE_STATUS_VALUE,
    )
    alert = Characteristic(
        PHONE_ALERT,
        Characteristic.Properties.NOTIFY | Characteristic.Properties.INDICATE,
        Attribute.Permissions.READABLE,
        PHONE_ALERT_INITIAL,
    )  # CCCD added by Bumble
    return {'services': [Service(PHONE_SERVICE, [status, alert])], 'status': status, 'alert': alert}


def advertising_data() -> bytes:
    """Flags + Complete Local Name + Complete List of 16-bit Service UUIDs."""
    return bytes(
        AdvertisingData(
            [
                (
                    AdvertisingData.FLAGS,
                    bytes(
                        [
                            AdvertisingData.LE_GENERAL_DISCOVERABLE_MODE_FLAG
                            | AdvertisingData.BR_EDR_NOT_SUPPORTED_FLAG
                        ]
                    ),
                ),
                (AdvertisingData.COMPLETE_LOCAL_NAME, PERIPHERAL_NAME.encode()),
                (
                    AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS,
                    struct.pack('<H', 0x180D),
                ),
            ]
        )
    )


# -----------------------------------------------------------------------------
# The test rig: two Bumble devices on one virtual link, central snooped
# -----------------------------------------------------------------------------
def legacy_only(controller: Controller) -> None:
    """Make a virtual controller look like a Bluetooth 4.2-style LE controller.

    Bumble's virtual controller advertises the LE Extended Advertising feature,
    which makes Bumble's host use the *extended* advertising/scanning commands
    and makes the controller emit *extended* advertising reports.  Clearing the
    feature bits makes the host use the classic LE Set Scan Parameters / LE Set
    Scan Enable / LE Set Advertising * commands and the controller emit plain
    LE Advertising Report events, which is what most real captures show.
    (LE Create Connection is legacy either way: the virtual controller does not
    list LE Extended Create Connection among its supported commands.)
    """
    controller.le_features = controller.le_features & ~(
        hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
        | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING
    )


@dataclass
class Rig:
    link: LocalLink
    central_controller: Controller
    peripheral_controller: Controller
    central: Device
    peripheral: Device
    gatt: dict[str, object]


class TeeSnooper(Snooper):
    """Hands every packet to several snoopers: one run, one file per format."""

    def __init__(self, *snoopers: Snooper):
        self.snoopers = snoopers

    def snoop(self, hci_packet: bytes, direction: Snooper.Direction) -> None:
        for snooper in self.snoopers:
            snooper.snoop(hci_packet, direction)


@contextlib.asynccontextmanager
async def make_rig(
    snoop_path: Path,
    with_error_service: bool = False,
    snooped: str = 'central',
    with_peripheral_service: bool = False,
    pcap: bool = True,
    central_services: list[Service] | None = None,
):
    """Build the two devices, snoop one of them (the central unless told), power
    both on.  With ``pcap`` the same packets also go to a pcap file beside the
    btsnoop one.  With ``central_services`` the central's own GATT server (GAP
    and GATT, which every Bumble device has) also holds these services, as a
    phone's does."""
    link = LocalLink()
    # The controllers' public BD_ADDRs (returned by HCI Read BD_ADDR) are set
    # to the same fixed values as the devices' static random addresses, so a
    # trace viewer that labels the local side by BD_ADDR shows the same address
    # the peer sees.  (Bumble's default BD_ADDR would be 00:00:00:00:00:00.)
    central_controller = Controller(
        'central', link=link, public_address=str(CENTRAL_ADDRESS)
    )
    peripheral_controller = Controller(
        'peripheral', link=link, public_address=str(PERIPHERAL_ADDRESS)
    )
    legacy_only(central_controller)
    legacy_only(peripheral_controller)

    # Host(controller_source, controller_sink): packets from the controller
    # are delivered to the host, and the host's packets are handed to the
    # controller asynchronously through an AsyncPipeSink (like a real UART).
    central_host = Host(central_controller, AsyncPipeSink(central_controller))
    peripheral_host = Host(
        peripheral_controller, AsyncPipeSink(peripheral_controller)
    )

    central = Device(name=CENTRAL_NAME, address=CENTRAL_ADDRESS, host=central_host)
    peripheral = Device(
        name=PERIPHERAL_NAME, address=PERIPHERAL_ADDRESS, host=peripheral_host
    )

    gatt = build_gatt_database(with_error_service, with_peripheral_service)
    peripheral.add_services(gatt['services'])  # type: ignore[arg-type]
    peripheral.gatt_server.max_mtu = SERVER_MAX_MTU
    peripheral.advertising_data = advertising_data()
    peripheral.scan_response_data = b''
    if central_services is not None:
        central.add_services(central_services)
        central.gatt_server.max_mtu = SERVER_MAX_MTU
    peripheral.advertising_interval_min = ADVERTISING_INTERVAL_MS
    peripheral.advertising_interval_max = ADVERTISING_INTERVAL_MS

    snooped_host = central_host if snooped == 'central' else peripheral_host
    with contextlib.ExitStack() as files:
        snoopers: list[Snooper] = [BtSnooper(files.enter_context(open(snoop_path, 'wb')))]
        if pcap:
            snoopers.append(PcapSnooper(files.enter_context(open(snoop_path.with_suffix('.pcap'), 'wb'))))
        # Attach the snoopers before power-on so that the capture starts with
        # the host's initialisation sequence (HCI Reset, Read Local Version,
        # LE Read Buffer Size, Set Event Mask, LE Set Random Address, ...),
        # exactly like a real btsnoop log does. Bumble writes the same packets
        # as btsnoop (datalink 1002) and as pcap (link type 201).
        snooped_host.snooper = TeeSnooper(*snoopers)
        await peripheral.power_on()
        await central.power_on()
        try:
            yield Rig(
                link,
                central_controller,
                peripheral_controller,
                central,
                peripheral,
                gatt,
            )
        finally:
            snooped_host.snooper = None
            with contextlib.suppress(Exception):
                await peripheral.stop_advertising()


async def connect(rig: Rig) -> tuple[Connection, Connection]:
    """Peripheral advertises, central issues LE Create Connection to it.

    Returns (central-side connection, peripheral-side connection).
    """
    peripheral_side: asyncio.Future[Connection] = (
        asyncio.get_running_loop().create_future()
    )
    rig.peripheral.once('connection', peripheral_side.set_result)
    await rig.peripheral.start_advertising()
    central_side = await rig.central.connect(PERIPHERAL_ADDRESS)
    return central_side, await peripheral_side


async def discover(peer: Peer) -> None:
    """Full discovery: primary services, characteristics, descriptors."""
    await peer.discover_services()
    for service in peer.services:
        await peer.discover_characteristics(service=service)
    for service in peer.services:
        for characteristic in service.characteristics:
            await peer.discover_descriptors(characteristic=characteristic)


def find_characteristic(peer: Peer, uuid: UUID):
    characteristics = peer.get_characteristics_by_uuid(uuid)
    assert characteristics, f'characteristic {uuid} not discovered'
    return characteristics[0]


def wait_disconnection(connection: Connection) -> asyncio.Future[int]:
    """Future resolved with the reason of the connection's disconnection.

    The listener is registered immediately (not when the future is awaited) so
    that an event fired before the await is not missed.
    """
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    connection.once('disconnection', future.set_result)
    return future


def supervision_timeout(rig: Rig) -> None:
    """Make the link drop as if the supervision timer had expired on both sides.

    Bumble's virtual controller has no supervision timer and the LocalLink never
    loses packets, so we drive each controller's own disconnection path
    directly: ``Controller.on_le_disconnected(connection, reason)`` is the
    method the controller runs when the link is torn down (it is what handles
    an LL_TERMINATE_IND from the peer).  It sends the HCI Disconnection Complete
    event with the given reason to its host and forgets the connection; no
    LL_TERMINATE_IND goes over the air, which is what happens on a real
    supervision timeout.  Both sides report reason 0x08 (Connection Timeout).
    """
    for controller, peer_address in (
        (rig.central_controller, PERIPHERAL_ADDRESS),
        (rig.peripheral_controller, CENTRAL_ADDRESS),
    ):
        ll_connection = controller.le_connections[peer_address]
        controller.on_le_disconnected(ll_connection, CONNECTION_TIMEOUT)


# -----------------------------------------------------------------------------
# Scenarios
# -----------------------------------------------------------------------------
async def scenario_reconnect_supervision_timeout(path: Path) -> None:
    async with make_rig(path) as rig:
        await asyncio.sleep(0.1)

        # --- First connection ------------------------------------------------
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)

        await peer.request_mtu(CLIENT_MTU)  # ATT Exchange MTU Request/Response
        await discover(peer)  # Read By Group Type / Read By Type / Find Info

        body_sensor_location = find_characteristic(peer, BODY_SENSOR_LOCATION)
        control_point = find_characteristic(peer, HEART_RATE_CONTROL_POINT)
        hrm = find_characteristic(peer, HEART_RATE_MEASUREMENT)

        value = await peer.read_value(body_sensor_location)  # ATT Read Request
        assert value == BODY_SENSOR_LOCATION_VALUE, value
        # ATT Write Request
        await peer.write_value(control_point, CONTROL_POINT_RESET, with_response=True)

        received: asyncio.Queue[bytes] = asyncio.Queue()
        await peer.subscribe(hrm, received.put_nowait)  # CCCD <- 0x0001
        await asyncio.sleep(0.05)

        # Three Handle Value Notifications, 100 ms apart.
        for value in HRM_NOTIFICATIONS:
            await rig.peripheral.notify_subscribers(rig.gatt['hrm'], value)
            assert await received.get() == value
            await asyncio.sleep(0.1)

        # --- Link loss: supervision timeout on both sides ---------------------
        central_lost = wait_disconnection(connection)
        peripheral_lost = wait_disconnection(peripheral_connection)
        supervision_timeout(rig)
        assert await central_lost == CONNECTION_TIMEOUT
        assert await peripheral_lost == CONNECTION_TIMEOUT

        # The central waits ~0.75 s before reconnecting.  connect() below makes
        # the peripheral advertise again first, as a real peripheral does after
        # a link loss (Bumble's controller stopped its advertiser on connect).
        await asyncio.sleep(0.75)

        # --- Second connection to the same peer -------------------------------
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        # A bonded/caching client reuses the handles found before: write the
        # CCCD directly (0x0001 = notifications) without re-discovery.
        cccd_handle = hrm.handle + 1
        await peer.write_value(cccd_handle, b'\x01\x00', with_response=True)
        notified: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        connection.gatt_client.notification_subscribers[hrm.handle] = {
            lambda value: notified.done() or notified.set_result(value)
        }
        await asyncio.sleep(0.05)
        await rig.peripheral.notify_subscribers(rig.gatt['hrm'], HRM_AFTER_RECONNECT)
        assert await notified == HRM_AFTER_RECONNECT
        await asyncio.sleep(0.2)

        # --- Deliberate local disconnect (HCI Disconnect, reason 0x13) --------
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


async def scenario_att_errors(path: Path) -> None:
    async with make_rig(path, with_error_service=True) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)

        async def expect_error(
            operation: Callable[[], Awaitable[object]], error_code: int
        ) -> None:
            try:
                await operation()
            except ATT_Error as error:
                assert error.error_code == error_code, error
            else:
                raise AssertionError(f'expected ATT error 0x{error_code:02X}')
            await asyncio.sleep(0.05)

        # 0x02 Read Not Permitted
        await expect_error(
            lambda: peer.read_value(find_characteristic(peer, ERR_READ_NOT_PERMITTED)),
            0x02,
        )
        # 0x03 Write Not Permitted
        await expect_error(
            lambda: peer.write_value(
                find_characteristic(peer, ERR_WRITE_NOT_PERMITTED),
                b'\x01',
                with_response=True,
            ),
            0x03,
        )
        # 0x05 Insufficient Authentication
        await expect_error(
            lambda: peer.write_value(
                find_characteristic(peer, ERR_WRITE_NEEDS_AUTH),
                b'\x01',
                with_response=True,
            ),
            0x05,
        )
        # 0x01 Invalid Handle
        await expect_error(lambda: peer.read_value(NONEXISTENT_HANDLE), 0x01)
        # 0x80 application error from a write callback
        await expect_error(
            lambda: peer.write_value(
                find_characteristic(peer, ERR_WRITE_APP_ERROR),
                b'\x01',
                with_response=True,
            ),
            APP_ERROR,
        )
        # One successful read to show the link is still fine after errors.
        value = await peer.read_value(find_characteristic(peer, CUSTOM_CONFIG))
        assert value == CUSTOM_CONFIG_INITIAL, value
        await asyncio.sleep(0.1)

        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


async def scenario_pairing_retry(path: Path) -> None:
    """A write the peer refuses with Insufficient Authentication; the central pairs
    (Just Works), the link is encrypted, and the same write is sent again and
    succeeds -- what iOS does by itself, so an app sees only the success."""
    async with make_rig(path, with_error_service=True) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        characteristic = find_characteristic(peer, ERR_WRITE_NEEDS_AUTH)
        try:
            await peer.write_value(characteristic, b'\x01', with_response=True)
        except ATT_Error as error:
            assert error.error_code == 0x05, error
        else:
            raise AssertionError('expected ATT error 0x05')
        await asyncio.sleep(0.05)
        await connection.pair()
        await asyncio.sleep(0.1)
        await peer.write_value(characteristic, b'\x01', with_response=True)
        await asyncio.sleep(0.1)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


async def scenario_peer_disconnect(path: Path) -> None:
    async with make_rig(path) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await peer.discover_services()
        await peer.discover_characteristics(
            service=peer.get_services_by_uuid(CUSTOM_SERVICE)[0]
        )
        config = find_characteristic(peer, CUSTOM_CONFIG)
        assert await peer.read_value(config) == CUSTOM_CONFIG_INITIAL
        await peer.write_value(config, CUSTOM_CONFIG_WRITTEN, with_response=True)
        assert await peer.read_value(config) == CUSTOM_CONFIG_WRITTEN
        await asyncio.sleep(0.2)

        # The PERIPHERAL hangs up (its host sends HCI Disconnect with reason
        # 0x13).  The central did not ask for anything: it just receives an
        # HCI Disconnection Complete event with reason 0x13.
        central_lost = wait_disconnection(connection)
        await peripheral_connection.disconnect(REMOTE_USER_TERMINATED)
        assert await central_lost == REMOTE_USER_TERMINATED
        await asyncio.sleep(0.1)


async def scenario_cancelled_connect(path: Path) -> None:
    async with make_rig(path) as rig:
        await asyncio.sleep(0.1)
        # Nobody advertises at ABSENT_ADDRESS (the peripheral is powered on but
        # not advertising at all), so the connection can never complete.
        attempt = asyncio.create_task(rig.central.connect(ABSENT_ADDRESS, timeout=None))
        await asyncio.sleep(1.0)
        # Device.cancel_connection() sends HCI LE Create Connection Cancel.
        await rig.central.cancel_connection()
        # A real controller would now send LE Connection Complete with status
        # 0x02 (Unknown Connection Identifier).  Bumble's virtual controller
        # does not (see README), so give it 0.5 s, then give up on the attempt.
        await asyncio.sleep(0.5)
        if not attempt.done():
            attempt.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await attempt
        await asyncio.sleep(0.1)


# Android's direct-connection timeout (packages/modules/Bluetooth, le_impl.h
# kCreateConnectionTimeoutMs): the stack cancels a connectGatt attempt after it.
ANDROID_DIRECT_CONNECT_TIMEOUT_S = 30.0
# A resolvable private address (top bits 01) that nobody on the link owns: a
# peer's address from an older scan, which it has since changed.
OLD_RESOLVABLE_ADDRESS = hci.Address('4B:22:33:44:55:66')


async def give_up_attempt(rig: Rig, address: hci.Address, wait_s: float) -> None:
    """LE Create Connection to ``address``, LE Create Connection Cancel
    ``wait_s`` later; Bumble's controller then sends no completion (see
    cancelled-connect), so the attempt is abandoned 0.5 s after the cancel."""
    attempt = asyncio.create_task(rig.central.connect(address, timeout=None))
    await asyncio.sleep(wait_s)
    await rig.central.cancel_connection()
    await asyncio.sleep(0.5)
    if not attempt.done():
        attempt.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await attempt
    await asyncio.sleep(0.1)


async def scenario_connect_timeout(path: Path) -> None:
    """The peer advertises while the central scans for 1 s, then stops; 1 s
    later the central connects and, as Android's stack does, cancels the
    attempt after 30 s."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        await rig.peripheral.start_advertising()
        await rig.central.start_scanning(legacy=True, filter_duplicates=False)
        await asyncio.sleep(1.0)
        await rig.central.stop_scanning(legacy=True)
        await rig.peripheral.stop_advertising()
        await asyncio.sleep(1.0)
        await give_up_attempt(rig, PERIPHERAL_ADDRESS, ANDROID_DIRECT_CONNECT_TIMEOUT_S)


async def scenario_connect_unheard(path: Path) -> None:
    """The central scans for 1 s and hears nobody (the peripheral is on but
    does not advertise), then connects to a resolvable private address nobody
    owns, and cancels after 2 s."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        await rig.central.start_scanning(legacy=True, filter_duplicates=False)
        await asyncio.sleep(1.0)
        await rig.central.stop_scanning(legacy=True)
        await asyncio.sleep(0.1)
        await give_up_attempt(rig, OLD_RESOLVABLE_ADDRESS, 2.0)


async def scenario_scan(path: Path) -> None:
    async with make_rig(path) as rig:
        await asyncio.sleep(0.1)
        await rig.peripheral.start_advertising()
        seen: list[bytes] = []
        rig.central.on('advertisement', lambda adv: seen.append(bytes(adv.data)))
        # LE Set Scan Parameters + LE Set Scan Enable (active scan).
        await rig.central.start_scanning(legacy=True, filter_duplicates=False)
        await asyncio.sleep(1.0)
        await rig.central.stop_scanning(legacy=True)
        await asyncio.sleep(0.1)
        assert seen, 'no advertisement seen'


async def scenario_service_changed(path: Path) -> None:
    """The peripheral removes a service while connected and says so with a Service Changed
    indication; the central rediscovers the range (nothing there: Attribute Not Found, which also
    ends a characteristic discovery) and a read of the old value handle fails (Invalid Handle)."""
    async with make_rig(path) as rig:
        removed = Service(
            REMOVED_SERVICE,
            [
                Characteristic(
                    REMOVED_CHARACTERISTIC,
                    Characteristic.Properties.READ,
                    Attribute.Permissions.READABLE,
                    REMOVED_VALUE,
                )
            ],
        )
        rig.peripheral.add_services([removed])
        first, last = removed.handle, removed.end_group_handle
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        value_handle = find_characteristic(peer, REMOVED_CHARACTERISTIC).handle
        assert await peer.read_value(value_handle) == REMOVED_VALUE
        await asyncio.sleep(0.1)

        # The service goes; the server tells the client which range changed.
        server = rig.peripheral.gatt_server
        server.attributes = [a for a in server.attributes if not first <= a.handle <= last]
        server.attributes_by_handle.clear()
        server.services = [s for s in server.services if s is not removed]
        service_changed = server.get_attribute(SERVICE_CHANGED_VALUE_HANDLE)
        await server.indicate_subscriber(
            peripheral_connection, service_changed, struct.pack('<HH', first, last), force=True
        )
        await asyncio.sleep(0.1)

        # Rediscovery of the range: services, then characteristics.
        client = peer.gatt_client
        for request in (
            ATT_Read_By_Group_Type_Request(
                starting_handle=first, ending_handle=last, attribute_group_type=GATT_PRIMARY_SERVICE_ATTRIBUTE_TYPE
            ),
            ATT_Read_By_Type_Request(
                starting_handle=first, ending_handle=last, attribute_type=GATT_CHARACTERISTIC_ATTRIBUTE_TYPE
            ),
        ):
            response = await client.send_request(request)
            assert isinstance(response, ATT_Error_Response), response
        await expect_att_error(peer.read_value(value_handle), 0x01)
        await asyncio.sleep(0.1)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


# -----------------------------------------------------------------------------
# Peripheral-side scenarios: the snooped host is the PERIPHERAL (a GATT server
# that advertises); the remote central connects, subscribes, reads and writes.
# -----------------------------------------------------------------------------
async def expect_att_error(operation: Awaitable[object], error_code: int) -> None:
    try:
        await operation
    except ATT_Error as error:
        assert error.error_code == error_code, error
    else:
        raise AssertionError(f'expected ATT error 0x{error_code:02X}')


async def scenario_peripheral_server(path: Path) -> None:
    async with make_rig(
        path, with_error_service=True, snooped='peripheral', with_peripheral_service=True, pcap=False
    ) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)

        # The central subscribes (CCCD <- 0x0001, Write Request) and gets three
        # notifications from this host's server, 100 ms apart.
        hrm = find_characteristic(peer, HEART_RATE_MEASUREMENT)
        received: asyncio.Queue[bytes] = asyncio.Queue()
        await peer.subscribe(hrm, received.put_nowait)
        await asyncio.sleep(0.05)
        for value in HRM_NOTIFICATIONS:
            await rig.peripheral.notify_subscribers(rig.gatt['hrm'], value)
            assert await received.get() == value
            await asyncio.sleep(0.1)

        # A read, a write with response, a write without response.
        value = await peer.read_value(find_characteristic(peer, BODY_SENSOR_LOCATION))
        assert value == BODY_SENSOR_LOCATION_VALUE, value
        await asyncio.sleep(0.05)
        await peer.write_value(
            find_characteristic(peer, HEART_RATE_CONTROL_POINT), CONTROL_POINT_RESET, with_response=True
        )
        await asyncio.sleep(0.05)
        await peer.write_value(
            find_characteristic(peer, PERIPHERAL_COMMAND), COMMAND_WITHOUT_RESPONSE, with_response=False
        )
        await asyncio.sleep(0.05)
        assert rig.gatt['written_without_response'] == [COMMAND_WITHOUT_RESPONSE]

        # A write this host's server refuses with the application error 0x80.
        await expect_att_error(
            peer.write_value(find_characteristic(peer, ERR_WRITE_APP_ERROR), b'\x01', with_response=True),
            APP_ERROR,
        )
        await asyncio.sleep(0.05)

        # The central unsubscribes (CCCD <- 0x0000), then hangs up (0x13).
        await peer.unsubscribe(hrm)
        await asyncio.sleep(0.05)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        assert await peripheral_lost == REMOTE_USER_TERMINATED
        await asyncio.sleep(0.1)


async def scenario_peripheral_disconnect_mid_notification(path: Path) -> None:
    async with make_rig(path, snooped='peripheral', pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        hrm = find_characteristic(peer, HEART_RATE_MEASUREMENT)
        received: asyncio.Queue[bytes] = asyncio.Queue()
        await peer.subscribe(hrm, received.put_nowait)
        await asyncio.sleep(0.05)

        # This host streams notifications every 50 ms until the link is gone.
        peripheral_lost = wait_disconnection(peripheral_connection)

        async def stream() -> None:
            bpm = 90
            while not peripheral_lost.done():
                await rig.peripheral.notify_subscribers(rig.gatt['hrm'], bytes([0x00, bpm]))
                bpm += 1
                await asyncio.sleep(STREAM_PERIOD_S)

        streaming = asyncio.create_task(stream())
        # The central hangs up in the middle of the stream.
        for _ in range(STREAM_BEFORE_DISCONNECT):
            await received.get()
        await asyncio.sleep(STREAM_PERIOD_S / 2)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        assert await peripheral_lost == REMOTE_USER_TERMINATED
        await streaming
        await asyncio.sleep(0.1)


# -----------------------------------------------------------------------------
# State-restoration scenarios, central side: what the app was doing
# when iOS could have terminated it.
# -----------------------------------------------------------------------------
async def connect_when_back(rig: Rig, away_s: float) -> tuple[Connection, Connection]:
    """LE Create Connection while the peripheral is away (not advertising); it
    comes back after ``away_s`` and the pending connection completes."""
    attempt = asyncio.create_task(rig.central.connect(PERIPHERAL_ADDRESS, timeout=None))
    await asyncio.sleep(away_s)
    peripheral_side: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
    rig.peripheral.once('connection', peripheral_side.set_result)
    await rig.peripheral.start_advertising()
    return await attempt, await peripheral_side


async def subscribe_heart_rate(rig: Rig, connection: Connection) -> tuple[Peer, asyncio.Queue[bytes]]:
    peer = Peer(connection)
    await asyncio.sleep(0.05)
    await peer.request_mtu(CLIENT_MTU)
    await discover(peer)
    received: asyncio.Queue[bytes] = asyncio.Queue()
    await peer.subscribe(find_characteristic(peer, HEART_RATE_MEASUREMENT), received.put_nowait)
    await asyncio.sleep(0.05)
    return peer, received


async def notify(rig: Rig, received: asyncio.Queue[bytes], values: list[bytes], period_s: float) -> None:
    for value in values:
        await rig.peripheral.notify_subscribers(rig.gatt['hrm'], value)
        assert await received.get() == value
        await asyncio.sleep(period_s)


async def scenario_restore_scanning(path: Path) -> None:
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        await rig.central.start_scanning(legacy=True, filter_duplicates=False)
        # Nothing around for 0.5 s, then the peripheral starts advertising; the
        # capture ends with the scan still on.
        await asyncio.sleep(0.5)
        await rig.peripheral.start_advertising()
        await asyncio.sleep(1.0)


async def scenario_restore_pending_connection(path: Path) -> None:
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        # The connection stays pending 1.5 s (connect never times out), then
        # completes when the peripheral comes back; the capture ends connected.
        connection, _ = await connect_when_back(rig, away_s=1.5)
        _, received = await subscribe_heart_rate(rig, connection)
        await notify(rig, received, HRM_NOTIFICATIONS[:1], 0.2)


async def scenario_restore_connected(path: Path) -> None:
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        assert await peer.read_value(find_characteristic(peer, BODY_SENSOR_LOCATION)) == BODY_SENSOR_LOCATION_VALUE
        # Connected and idle; the capture ends connected.
        await asyncio.sleep(1.0)


async def scenario_restore_out_of_range(path: Path) -> None:
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        _, received = await subscribe_heart_rate(rig, connection)
        await notify(rig, received, HRM_NOTIFICATIONS[:2], 0.1)
        # The peer goes out of range: the link drops by supervision timeout
        # (0x08). The central asks to reconnect at once; the connection stays
        # pending until the peer is back, 1 s later.
        central_lost = wait_disconnection(connection)
        supervision_timeout(rig)
        assert await central_lost == CONNECTION_TIMEOUT
        connection, _ = await connect_when_back(rig, away_s=1.0)
        # Back in range: the client resubscribes with the cached CCCD handle
        # (0x0011) and gets one notification; the capture ends connected.
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        notified: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        hrm_value_handle = 0x0010
        connection.gatt_client.notification_subscribers[hrm_value_handle] = {
            lambda value: notified.done() or notified.set_result(value)
        }
        await peer.write_value(hrm_value_handle + 1, b'\x01\x00', with_response=True)
        await asyncio.sleep(0.05)
        await rig.peripheral.notify_subscribers(rig.gatt['hrm'], HRM_AFTER_RECONNECT)
        assert await notified == HRM_AFTER_RECONNECT
        await asyncio.sleep(0.2)


async def scenario_restore_notifying(path: Path) -> None:
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        _, received = await subscribe_heart_rate(rig, connection)
        # Notifications every 200 ms; the capture ends connected and notifying.
        await notify(rig, received, [bytes([0x00, bpm]) for bpm in range(100, 108)], 0.2)


# -----------------------------------------------------------------------------
# Shapes of field logs the captures above lack.  Both ends are GATT
# clients of each other; one peer answers differently on each connection; an
# iOS PacketLogger file that starts with days-old notes.
# -----------------------------------------------------------------------------
def service_changed_of(device: Device) -> Characteristic:
    service = device.gatt_service
    assert service is not None and service.service_changed_characteristic is not None
    return service.service_changed_characteristic


async def scenario_peer_also_client(path: Path) -> None:
    """The snooped central also runs a GATT server (a phone's: GAP, GATT, 0xCCC0) and the
    peripheral is a client of it, while the central does its own client work on the
    peripheral's server.  Some requests of the two clients are outstanding at the same time."""
    phone = build_phone_database()
    async with make_rig(path, pcap=False, central_services=phone['services']) as rig:  # type: ignore[arg-type]
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        host = Peer(connection)  # this host's client, of the peripheral's server
        remote = Peer(peripheral_connection)  # the peripheral's client, of this host's server
        await asyncio.sleep(0.05)
        await host.request_mtu(CLIENT_MTU)
        await asyncio.sleep(0.05)

        # Both clients discover the other's database at once: requests cross.
        await asyncio.gather(discover(host), discover(remote))
        await asyncio.sleep(0.05)

        # The peer subscribes to this host's Service Changed (CCCD 0x0009 <- 02 00)
        # while this host reads Body Sensor Location.
        indications: asyncio.Queue[bytes] = asyncio.Queue()
        service_changed = find_characteristic(remote, GATT_SERVICE_CHANGED_CHARACTERISTIC)
        _, location = await asyncio.gather(
            remote.subscribe(service_changed, indications.put_nowait, prefer_notify=False),
            host.read_value(find_characteristic(host, BODY_SENSOR_LOCATION)),
        )
        assert location == BODY_SENSOR_LOCATION_VALUE, location
        await asyncio.sleep(0.05)

        # The peer reads this host's CCC1 while this host writes the HR Control Point.
        status, _ = await asyncio.gather(
            remote.read_value(find_characteristic(remote, PHONE_STATUS)),
            host.write_value(
                find_characteristic(host, HEART_RATE_CONTROL_POINT), CONTROL_POINT_RESET, with_response=True
            ),
        )
        assert status == PHONE_STATUS_VALUE, status
        await asyncio.sleep(0.05)

        # This host subscribes to HR Measurement and gets three notifications.
        received: asyncio.Queue[bytes] = asyncio.Queue()
        await host.subscribe(find_characteristic(host, HEART_RATE_MEASUREMENT), received.put_nowait)
        await asyncio.sleep(0.05)
        await notify(rig, received, HRM_NOTIFICATIONS, 0.1)

        # The peer subscribes to this host's CCC2 (notifications) and gets one.
        alerts: asyncio.Queue[bytes] = asyncio.Queue()
        await remote.subscribe(find_characteristic(remote, PHONE_ALERT), alerts.put_nowait)
        await asyncio.sleep(0.05)
        await rig.central.notify_subscribers(phone['alert'], PHONE_ALERTS[0])  # type: ignore[arg-type]
        assert await alerts.get() == PHONE_ALERTS[0]
        await asyncio.sleep(0.05)

        # The peer writes a handle this host's server does not have: Invalid Handle.
        await expect_att_error(
            remote.write_value(PHONE_MISSING_HANDLE, PHONE_MISSING_WRITE, with_response=True), 0x01
        )
        await asyncio.sleep(0.05)

        # This host's server indicates Service Changed (its custom service's range);
        # the peer confirms.
        changed = struct.pack('<HH', *PHONE_SERVICE_RANGE)
        await rig.central.indicate_subscriber(connection, service_changed_of(rig.central), changed)
        assert await indications.get() == changed
        await asyncio.sleep(0.1)

        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


async def scenario_peripheral_and_client(path: Path) -> None:
    """The snooped host is the peripheral: it serves its database to the central and is also a
    client of the central's server (discovery, a read, a subscription, a notification)."""
    phone = build_phone_database()
    async with make_rig(
        path, snooped='peripheral', pcap=False, central_services=phone['services']  # type: ignore[arg-type]
    ) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        central = Peer(connection)  # the remote central's client, of this host's server
        host = Peer(peripheral_connection)  # this host's client, of the central's server
        await asyncio.sleep(0.05)
        await central.request_mtu(CLIENT_MTU)
        await discover(central)
        await asyncio.sleep(0.05)

        # This host discovers the central's database while the central reads Body
        # Sensor Location and writes the HR Control Point.
        async def central_read_and_write() -> None:
            value = await central.read_value(find_characteristic(central, BODY_SENSOR_LOCATION))
            assert value == BODY_SENSOR_LOCATION_VALUE, value
            await central.write_value(
                find_characteristic(central, HEART_RATE_CONTROL_POINT), CONTROL_POINT_RESET, with_response=True
            )

        await asyncio.gather(discover(host), central_read_and_write())
        await asyncio.sleep(0.05)

        # This host reads the central's CCC1, subscribes to its CCC2 and gets a notification.
        assert await host.read_value(find_characteristic(host, PHONE_STATUS)) == PHONE_STATUS_VALUE
        await asyncio.sleep(0.05)
        alerts: asyncio.Queue[bytes] = asyncio.Queue()
        await host.subscribe(find_characteristic(host, PHONE_ALERT), alerts.put_nowait)
        await asyncio.sleep(0.05)
        await rig.central.notify_subscribers(phone['alert'], PHONE_ALERTS[0])  # type: ignore[arg-type]
        assert await alerts.get() == PHONE_ALERTS[0]
        await asyncio.sleep(0.05)

        # The central subscribes to HR Measurement; this host notifies three times, and the
        # central notifies once more in between.
        received: asyncio.Queue[bytes] = asyncio.Queue()
        await central.subscribe(find_characteristic(central, HEART_RATE_MEASUREMENT), received.put_nowait)
        await asyncio.sleep(0.05)
        await notify(rig, received, HRM_NOTIFICATIONS[:2], 0.1)
        await rig.central.notify_subscribers(phone['alert'], PHONE_ALERTS[1])  # type: ignore[arg-type]
        assert await alerts.get() == PHONE_ALERTS[1]
        await asyncio.sleep(0.05)
        await notify(rig, received, HRM_NOTIFICATIONS[2:], 0.1)

        # The central hangs up (0x13).
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        assert await peripheral_lost == REMOTE_USER_TERMINATED
        await asyncio.sleep(0.1)


async def scenario_reconnect_answers_differ(path: Path) -> None:
    """Three connections to the same peripheral, whose server answers the same requests
    differently each time (its handlers are changed between connections)."""
    async with make_rig(path, pcap=False) as rig:
        server = rig.peripheral.gatt_server
        hrm_cccd = server.get_attribute(0x0011)
        location = server.get_attribute(0x0013)
        assert hrm_cccd is not None and location is not None
        writable = hrm_cccd.permissions
        await asyncio.sleep(0.1)

        # --- Connection 1: the subscription is refused, the read gives 01 ------
        # Bumble's own permission check answers Insufficient Authorization.
        hrm_cccd.permissions = writable | Attribute.Permissions.WRITE_REQUIRES_AUTHORIZATION
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        hrm = find_characteristic(peer, HEART_RATE_MEASUREMENT)
        await expect_att_error(peer.subscribe(hrm, lambda _value: None), INSUFFICIENT_AUTHORIZATION)
        await asyncio.sleep(0.05)
        assert await peer.read_value(0x0013) == BODY_SENSOR_LOCATION_VALUE
        await asyncio.sleep(0.1)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)  # this host hangs up
        await peripheral_lost

        # --- Connection 2: the subscription is accepted, the read gives 02 -----
        hrm_cccd.permissions = writable
        location.value = BODY_SENSOR_LOCATION_SECOND
        await asyncio.sleep(0.3)
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)  # no bond: the client discovers again
        received: asyncio.Queue[bytes] = asyncio.Queue()
        await peer.subscribe(find_characteristic(peer, HEART_RATE_MEASUREMENT), received.put_nowait)
        await asyncio.sleep(0.05)
        await notify(rig, received, HRM_NOTIFICATIONS[:1], 0.05)
        assert await peer.read_value(0x0013) == BODY_SENSOR_LOCATION_SECOND
        await asyncio.sleep(0.1)
        central_lost = wait_disconnection(connection)
        await peripheral_connection.disconnect(REMOTE_USER_TERMINATED)  # the peer hangs up
        assert await central_lost == REMOTE_USER_TERMINATED

        # --- Connection 3: the read fails, the write is accepted ---------------
        def unlikely(_connection):
            raise ATT_Error(UNLIKELY_ERROR)

        location.value = CharacteristicValue(read=unlikely)
        await asyncio.sleep(0.3)
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        # The client uses the handles it found before, without discovery.
        await expect_att_error(peer.read_value(0x0013), UNLIKELY_ERROR)
        await asyncio.sleep(0.05)
        await peer.write_value(0x0015, CONTROL_POINT_RESET, with_response=True)
        await asyncio.sleep(0.1)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


async def scenario_pklg_header_notes(path: Path) -> None:
    """The HCI traffic of pklg-header-notes.pklg (see ``prepend_pklg_notes``): connect,
    discover, a read, a disconnect."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        value = await peer.read_value(find_characteristic(peer, BODY_SENSOR_LOCATION))
        assert value == BODY_SENSOR_LOCATION_VALUE, value
        await asyncio.sleep(0.1)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


def prepend_pklg_notes(source: Path, destination: Path) -> None:
    """Write ``destination``: the note records of PKLG_NOTES, then every record of ``source``.

    ``source`` is ``bletrace convert pklg-header-notes.btsnoop X.pklg``: a little-endian
    PacketLogger file (what iOS writes).  PacketLogger has no file header; each record is
    u32 length (9 + payload), u32 seconds and u32 microseconds since 1970 (UTC), u8 type,
    payload (Formats/pklg.md).  A note is type 0xFC with UTF-8 text and no NUL.  As in the
    header of an iOS sysdiagnose log, all notes carry one time stamp, PKLG_NOTES_LEAD_US before
    the first record of ``source`` and rounded down to the millisecond (iOS stamps whole ms).
    The records of ``source`` are copied unchanged.
    """
    data = source.read_bytes()
    assert len(data) >= 13, 'no record in the PacketLogger file'
    _length, seconds, micros = struct.unpack_from('<III', data, 0)
    assert micros < 1_000_000, 'not a little-endian PacketLogger file'
    first_us = seconds * 1_000_000 + micros
    notes_us = (first_us - PKLG_NOTES_LEAD_US) // 1000 * 1000
    header = bytearray()
    for text in PKLG_NOTES:
        payload = text.encode()
        header += struct.pack(
            '<IIIB', 9 + len(payload), notes_us // 1_000_000, notes_us % 1_000_000, PKLG_NOTE_TYPE
        )
        header += payload
    destination.write_bytes(bytes(header) + data)


# -----------------------------------------------------------------------------
# What iOS tells an app when pairing happens in the middle of a
# connection (and when the user cancels it), when Bluetooth powers off while a
# request is pending, and when a central never confirms an indication.
# -----------------------------------------------------------------------------
class PhoneDelegate(PairingDelegate):
    """The central's pairing delegate: a phone has a display and a keyboard
    (IO capability KeyboardDisplay, 0x04), and Just Works needs no one to tap."""

    def __init__(self) -> None:
        super().__init__(io_capability=PairingDelegate.IoCapability.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT)


class CancellingPhoneDelegate(PhoneDelegate):
    """The user is asked for the passkey the accessory shows, looks at the prompt
    for PASSKEY_PROMPT_S and taps Cancel: no number (Bumble then sends SMP Pairing
    Failed with Passkey Entry Failed, 0x01)."""

    def __init__(self) -> None:
        super().__init__()
        self.prompted = asyncio.Event()

    async def get_number(self) -> int | None:
        self.prompted.set()
        await asyncio.sleep(PASSKEY_PROMPT_S)
        return None


class DisplayingDelegate(PairingDelegate):
    """The peripheral's: it can only display a passkey (IO capability DisplayOnly)."""

    def __init__(self) -> None:
        super().__init__(io_capability=PairingDelegate.IoCapability.DISPLAY_OUTPUT_ONLY)

    async def generate_passkey(self) -> int:
        return PERIPHERAL_PASSKEY


async def connect_and_discover(rig: Rig) -> tuple[Connection, Connection, Peer]:
    """Connect, exchange MTU and discover everything, as most scenarios begin."""
    connection, peripheral_connection = await connect(rig)
    peer = Peer(connection)
    await asyncio.sleep(0.05)
    await peer.request_mtu(CLIENT_MTU)
    await discover(peer)
    return connection, peripheral_connection, peer


def encrypted_service() -> Service:
    """pairing-midway's extra service: E0C1 can be read only on an encrypted link."""
    return Service(
        ENCRYPTED_SERVICE,
        [
            Characteristic(
                ENCRYPTED_SECRET,
                Characteristic.Properties.READ,
                Attribute.Permissions.READABLE | Attribute.Permissions.READ_REQUIRES_ENCRYPTION,
                ENCRYPTED_SECRET_VALUE,
            )
        ],
    )


async def scenario_pairing_midway(path: Path) -> None:
    """Reads and writes before and after pairing on one link: a read that needs no security
    succeeds; a read that needs encryption is refused (0x0F) and a write that needs
    authentication is refused (0x05); the central pairs (Just Works) and the link is encrypted;
    both requests are sent again and succeed; one more read of the encrypted characteristic
    is made on the already-encrypted link."""
    async with make_rig(path, with_error_service=True, pcap=False) as rig:
        rig.peripheral.add_services([encrypted_service()])
        rig.central.pairing_config_factory = lambda _connection: PairingConfig(delegate=PhoneDelegate())
        await asyncio.sleep(0.1)
        connection, _, peer = await connect_and_discover(rig)
        location = find_characteristic(peer, BODY_SENSOR_LOCATION)
        secret = find_characteristic(peer, ENCRYPTED_SECRET)
        needs_auth = find_characteristic(peer, ERR_WRITE_NEEDS_AUTH)

        assert await peer.read_value(location) == BODY_SENSOR_LOCATION_VALUE
        await asyncio.sleep(0.05)
        await expect_att_error(peer.read_value(secret), INSUFFICIENT_ENCRYPTION)
        await asyncio.sleep(0.05)
        await expect_att_error(peer.write_value(needs_auth, b'\x01', with_response=True), INSUFFICIENT_AUTHENTICATION)
        await asyncio.sleep(0.05)

        # SMP Just Works (the peripheral has no IO), then LE Start Encryption.
        await connection.pair()
        assert connection.is_encrypted
        await asyncio.sleep(0.1)

        # The two refused requests again, as iOS retries them by itself.
        assert await peer.read_value(secret) == ENCRYPTED_SECRET_VALUE
        await asyncio.sleep(0.05)
        await peer.write_value(needs_auth, b'\x01', with_response=True)
        await asyncio.sleep(0.2)

        # A later read, made on a link that is already encrypted.
        assert await peer.read_value(secret) == ENCRYPTED_SECRET_VALUE
        await asyncio.sleep(0.1)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


async def scenario_pairing_cancelled(path: Path) -> None:
    """A write refused with Insufficient Authentication; the central starts pairing (passkey
    entry: the peripheral displays, the phone's user types), and the user cancels at the
    prompt: the central sends SMP Pairing Failed (Passkey Entry Failed) and ends the link."""
    async with make_rig(path, with_error_service=True, pcap=False) as rig:
        delegate = CancellingPhoneDelegate()
        rig.central.pairing_config_factory = lambda _connection: PairingConfig(delegate=delegate)
        rig.peripheral.pairing_config_factory = lambda _connection: PairingConfig(delegate=DisplayingDelegate())
        await asyncio.sleep(0.1)
        connection, peripheral_connection, peer = await connect_and_discover(rig)
        needs_auth = find_characteristic(peer, ERR_WRITE_NEEDS_AUTH)
        await expect_att_error(peer.write_value(needs_auth, b'\x01', with_response=True), INSUFFICIENT_AUTHENTICATION)
        await asyncio.sleep(0.05)

        try:
            await connection.pair()
        except ProtocolError as error:
            assert error.error_code == SMP_PASSKEY_ENTRY_FAILED_ERROR, error
        else:
            raise AssertionError('expected the pairing to fail')
        assert delegate.prompted.is_set() and not connection.is_encrypted

        # After a cancelled pairing the phone ends the connection.
        await asyncio.sleep(HANG_UP_AFTER_CANCEL_S)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        assert await peripheral_lost == REMOTE_USER_TERMINATED
        await asyncio.sleep(0.1)


async def scenario_power_off_pending(path: Path) -> None:
    """Subscribed to HR Measurement, the central reads Body Sensor Location, which the peripheral
    answers only after SLOW_READ_S; before the answer the central's Bluetooth powers off: its
    host disconnects with reason 0x15 and resets the controller.  No Read Response is recorded."""
    async with make_rig(path, pcap=False) as rig:
        location = rig.peripheral.gatt_server.get_attribute(0x0013)
        assert location is not None

        async def slow_read(_connection) -> bytes:
            await asyncio.sleep(SLOW_READ_S)
            return BODY_SENSOR_LOCATION_VALUE

        location.value = CharacteristicValue(read=slow_read)
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        peer, received = await subscribe_heart_rate(rig, connection)
        await notify(rig, received, HRM_NOTIFICATIONS[:2], 0.1)

        # The read goes out; the peripheral still notifies while it thinks.
        pending = asyncio.create_task(peer.read_value(0x0013))
        await asyncio.sleep(0.1)
        await notify(rig, received, HRM_NOTIFICATIONS[2:], 0)
        await asyncio.sleep(POWER_OFF_AFTER_S - 0.1)
        assert not pending.done()

        # Bluetooth powers off: HCI Disconnect (0x15) for the link, then HCI Reset.
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(POWER_OFF)
        assert await peripheral_lost == POWER_OFF
        await rig.central.host.send_command(hci.HCI_Reset_Command(), check_result=True)
        with contextlib.suppress(asyncio.CancelledError):
            await pending
            raise AssertionError('the read was answered')
        # Stay past the time the answer would have come.
        await asyncio.sleep(SLOW_READ_S)


def indicate_service() -> tuple[Service, Characteristic]:
    """unconfirmed-indication's extra service: A1A1, read and indicate (CCCD added by Bumble)."""
    status = Characteristic(
        INDICATE_STATUS,
        Characteristic.Properties.READ | Characteristic.Properties.INDICATE,
        Attribute.Permissions.READABLE,
        INDICATE_STATUS_INITIAL,
    )
    return Service(INDICATE_SERVICE, [status]), status


async def scenario_unconfirmed_indication(path: Path) -> None:
    """The snooped host is the peripheral.  The central subscribes to indications of A1A1; this
    host indicates, and the central's host drops the indication without a Handle Value
    Confirmation.  Bumble's server gives the indication up after ATT's 30-second transaction
    timeout (and does nothing else); the host then ends the link, as the ATT spec asks."""
    async with make_rig(path, snooped='peripheral', pcap=False) as rig:
        service, status = indicate_service()
        rig.peripheral.add_services([service])
        await asyncio.sleep(0.1)
        connection, peripheral_connection, peer = await connect_and_discover(rig)
        characteristic = find_characteristic(peer, INDICATE_STATUS)
        await peer.subscribe(characteristic, lambda _value: None, prefer_notify=False)  # CCCD <- 02 00
        await asyncio.sleep(0.05)

        # The central's host drops indications: no Handle Value Confirmation.
        dropped: list[bytes] = []
        peer.gatt_client.on_att_handle_value_indication = (  # type: ignore[method-assign]
            lambda indication: dropped.append(bytes(indication.attribute_value))
        )
        central_lost = wait_disconnection(connection)
        try:
            await rig.peripheral.indicate_subscriber(peripheral_connection, status, INDICATE_STATUS_CHANGED)
        except TimeoutError:
            pass
        else:
            raise AssertionError('the indication was confirmed')
        assert dropped == [INDICATE_STATUS_CHANGED], dropped
        assert not peripheral_connection.is_incomplete and not central_lost.done()

        # ATT transaction timeout: this host ends the link.
        await peripheral_connection.disconnect(REMOTE_USER_TERMINATED)
        assert await central_lost == REMOTE_USER_TERMINATED
        await asyncio.sleep(0.1)


# -----------------------------------------------------------------------------
# Captures for the diagnose rules no other capture shows.  Where a
# real controller's outcome cannot come from Bumble's virtual one, the script
# drives that controller's own path or writes the event its host sees, and
# Captures/README.md says which.
# -----------------------------------------------------------------------------
LL_RESPONSE_TIMEOUT = hci.HCI_ErrorCode.LMP_OR_LL_RESPONSE_TIMEOUT_ERROR  # 0x22
LL_RESPONSE_TIMEOUT_S = 40.0  # Core 6.0, Vol 6, Part B, §5.2: the LL procedure response timeout
UNACCEPTABLE_PARAMETERS = hci.HCI_ErrorCode.UNACCEPTABLE_CONNECTION_PARAMETERS_ERROR  # 0x3B
SHORT_KEY_SIZE = 7
ACCESSORY_PAIRING_WINDOW_S = 5.0


def bonding_config(delegate: PairingDelegate) -> PairingConfig:
    """Bonding, with the device's static random address as the identity it distributes (the
    address the peer connects to, so the key stores find the keys again)."""
    return PairingConfig(
        sc=True, mitm=True, bonding=True, delegate=delegate, identity_address_type=PairingConfig.AddressType.RANDOM
    )


class ShortKeyDelegate(PairingDelegate):
    """An accessory whose SMP allows keys of SHORT_KEY_SIZE bytes at most (Maximum
    Encryption Key Size in its Pairing Response)."""

    def __init__(self) -> None:
        super().__init__(maximum_encryption_key_size=SHORT_KEY_SIZE)


class SilentPhoneDelegate(PhoneDelegate):
    """The phone's pairing prompt opens and nobody answers it."""

    def __init__(self) -> None:
        super().__init__()
        self.prompted = asyncio.Event()

    async def get_number(self) -> int | None:
        self.prompted.set()
        await asyncio.Event().wait()  # never
        return None


async def scenario_ll_response_timeout(path: Path) -> None:
    """The central's host asks for a connection update (LE Connection Update); the peer's
    link layer never answers the procedure, while its data still flows; after the LL
    response timeout (40 s) the central's controller reports the update failed and ends
    the link, both with LL Response Timeout (0x22).

    Bumble's virtual controller completes every connection update at once, so this
    scenario replaces the central controller's LE Connection Update handler: it answers
    Command Status (pending), sends nothing to the peer, and 40 s later writes the LE
    Connection Update Complete (status 0x22) and runs its own teardown path with 0x22 (the
    peripheral's controller, not recorded, tears down with 0x08, as a peer whose central
    went quiet does)."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        _, received = await subscribe_heart_rate(rig, connection)
        await notify(rig, received, [bytes([0x00, 0x48])], 0.1)
        await leave_procedure_unanswered(
            rig,
            connection,
            received,
            'on_hci_le_connection_update_command',
            lambda command: hci.HCI_LE_Connection_Update_Complete_Event(
                status=LL_RESPONSE_TIMEOUT,
                connection_handle=command.connection_handle,
                connection_interval=0,
                peripheral_latency=0,
                supervision_timeout=0,
            ),
            lambda: rig.central.update_connection_parameters(connection, 30, 45, 0, 4000),
        )
        await asyncio.sleep(0.1)


async def leave_procedure_unanswered(
    rig: Rig,
    connection: Connection,
    received: asyncio.Queue[bytes],
    handler: str,
    completion: Callable[[Any], hci.HCI_Event],
    start: Callable[[], Awaitable[object]],
) -> None:
    """The central's host starts a link-layer procedure (``start``) that the peer never answers:
    the central controller's ``handler`` of the command answers Command Status (pending) and
    sends nothing to the peer.  The peer's data still flows (a notification every 10 s); 40 s
    later the controller writes ``completion(command)`` (the procedure's completion event, status
    0x22) and ends the link (``end_with_ll_response_timeout``)."""
    controller = rig.central_controller
    timed_out = asyncio.get_running_loop().create_future()

    def unanswered(command: Any) -> None:
        controller._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)

        def time_out() -> None:
            controller.send_hci_packet(completion(command))
            end_with_ll_response_timeout(rig)
            timed_out.set_result(None)

        asyncio.get_running_loop().call_later(LL_RESPONSE_TIMEOUT_S, time_out)

    setattr(controller, handler, unanswered)
    central_lost = wait_disconnection(connection)
    started = asyncio.create_task(start())
    for beat in range(3):
        await asyncio.sleep(10)
        await notify(rig, received, [bytes([0x00, 0x49 + beat])], 0)
    await timed_out
    assert await central_lost == LL_RESPONSE_TIMEOUT
    with contextlib.suppress(Exception):
        await started


async def scenario_timeout_after_update(path: Path) -> None:
    """Connected and notifying; the central's host changes the connection parameters (LE
    Connection Update, completed at once by Bumble's controller) and 0.6 s later the link is lost
    by supervision timeout (0x08), as when a peer misses the update's instant.  The loss is
    injected as in reconnect-supervision-timeout (each controller's own teardown path)."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        _, received = await subscribe_heart_rate(rig, connection)
        await notify(rig, received, [bytes([0x00, 0x48]), bytes([0x00, 0x49])], 0.1)
        # A 500 ms supervision timeout: the loss 0.6 s later fits a peer that never followed.
        await rig.central.update_connection_parameters(connection, 30, 45, 0, 500)
        await asyncio.sleep(0.6)
        central_lost = wait_disconnection(connection)
        supervision_timeout(rig)
        assert await central_lost == CONNECTION_TIMEOUT
        await asyncio.sleep(0.1)


async def scenario_unacceptable_parameters(path: Path) -> None:
    """The peripheral asks for a 7.5-10 ms interval and a 1 s supervision timeout (L2CAP
    Connection Parameter Update Request); the central refuses (result 1), as iOS may refuse
    parameters outside Apple's guidelines; the accessory insists on them and ends the link
    with Unacceptable Connection Parameters (0x3B).

    Bumble's central accepts every request, so this scenario replaces the central L2CAP
    channel manager's handler with one that answers "rejected"; the rest is Bumble's own:
    the peripheral's host sends HCI Disconnect with reason 0x3B, its controller sends
    LL_TERMINATE_IND, and the central's controller reports that reason."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection, peer = await connect_and_discover(rig)
        manager = rig.central.l2cap_channel_manager

        def refuse(central_connection, cid, request) -> None:
            manager.send_control_frame(
                central_connection,
                cid,
                l2cap.L2CAP_Connection_Parameter_Update_Response(
                    identifier=request.identifier, result=l2cap.L2CAP_CONNECTION_PARAMETERS_REJECTED_RESULT
                ),
            )

        manager.on_l2cap_connection_parameter_update_request = refuse  # type: ignore[method-assign]
        try:
            await rig.peripheral.update_connection_parameters(peripheral_connection, 7.5, 10, 0, 1000, use_l2cap=True)
        except ConnectionParameterUpdateError:
            pass
        else:
            raise AssertionError('expected the central to refuse the parameters')
        await asyncio.sleep(0.1)
        central_lost = wait_disconnection(connection)
        await peripheral_connection.disconnect(UNACCEPTABLE_PARAMETERS)
        assert await central_lost == UNACCEPTABLE_PARAMETERS
        await asyncio.sleep(0.1)


async def bond_then_reconnect(rig: Rig) -> tuple[Connection, Connection]:
    """Connection 1: connect, discover, pair and bond (the keys go to both key stores), read,
    hang up.  Then connect again and return connection 2."""
    connection, peripheral_connection, peer = await connect_and_discover(rig)
    await connection.pair()
    assert connection.is_encrypted
    await asyncio.sleep(0.1)
    assert await peer.read_value(find_characteristic(peer, BODY_SENSOR_LOCATION)) == BODY_SENSOR_LOCATION_VALUE
    await asyncio.sleep(0.1)
    peripheral_lost = wait_disconnection(peripheral_connection)
    await connection.disconnect(REMOTE_USER_TERMINATED)
    await peripheral_lost
    await asyncio.sleep(0.2)
    assert await rig.central.keystore.get(str(PERIPHERAL_ADDRESS)) is not None
    assert await rig.peripheral.keystore.get(str(CENTRAL_ADDRESS)) is not None
    return await connect(rig)


async def scenario_bonded_database_changed(path: Path) -> None:
    """Connection 1 discovers, pairs and bonds, reads Body Sensor Location (0x0013) and writes
    the Heart Rate Control Point (0x0015).  Between the connections the accessory's database
    changes, as after a firmware update: the Heart Rate service gives way to a new service
    (0xAAB0, one read characteristic), so the custom 0xAAA0 service moves down, and its value
    now sits at 0x0013.  The accessory sends no Service Changed indication.  Connection 2 is
    encrypted with the bond; the central discovers again and finds the new database, reads the
    new characteristic and 0x0013 (now the custom value, "bletrace"), then writes the old
    Control Point handle 0x0015, which no longer exists: Invalid Handle."""
    async with make_rig(path, pcap=False) as rig:
        bonding_rig(rig)
        await asyncio.sleep(0.1)
        connection, peripheral_connection, peer = await connect_and_discover(rig)
        await connection.pair()
        assert connection.is_encrypted
        await asyncio.sleep(0.1)
        assert await peer.read_value(0x0013) == BODY_SENSOR_LOCATION_VALUE
        await peer.write_value(0x0015, CONTROL_POINT_RESET, with_response=True)
        await asyncio.sleep(0.1)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await peripheral_lost

        # The firmware update: the server's database is built again, in its new order.
        server = rig.peripheral.gatt_server
        kept = [s for s in server.services if s.uuid != HEART_RATE_SERVICE]
        updated = Service(
            UPDATED_SERVICE,
            [
                Characteristic(
                    UPDATED_CHARACTERISTIC,
                    Characteristic.Properties.READ,
                    Attribute.Permissions.READABLE,
                    UPDATED_VALUE,
                )
            ],
        )
        server.attributes = []
        server.attributes_by_handle.clear()
        server.services = []
        server.add_services([*kept[:2], updated, *kept[2:]])
        assert (updated.handle, kept[2].handle) == (0x000E, 0x0011), (updated.handle, kept[2].handle)
        await asyncio.sleep(0.3)

        connection, peripheral_connection = await connect(rig)
        await connection.encrypt()  # with the bond: no pairing
        assert connection.is_encrypted
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        assert await peer.read_value(find_characteristic(peer, UPDATED_CHARACTERISTIC)) == UPDATED_VALUE
        assert await peer.read_value(0x0013) == CUSTOM_CONFIG_INITIAL
        await expect_att_error(peer.write_value(0x0015, CONTROL_POINT_RESET, with_response=True), 0x01)
        await asyncio.sleep(0.1)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await peripheral_lost
        await asyncio.sleep(0.1)


def bonding_rig(rig: Rig) -> None:
    rig.central.keystore = MemoryKeyStore()
    rig.peripheral.keystore = MemoryKeyStore()
    rig.central.pairing_config_factory = lambda _connection: bonding_config(PhoneDelegate())
    rig.peripheral.pairing_config_factory = lambda _connection: bonding_config(PairingDelegate())


async def scenario_bond_lost(path: Path) -> None:
    """Connection 1 pairs and bonds.  The accessory then forgets the bond (a factory reset:
    its key store entry for the phone is deleted).  Connection 2: the central starts
    encryption with the LTK it kept; the peripheral's host has no key and answers LE Long Term
    Key Request Negative Reply; the peripheral's controller rejects the LL_ENC_REQ with PIN or
    Key Missing (0x06) and the central's controller reports Encryption Change, status 0x06
    (all Bumble's own controller paths).  The central hangs up.  Connection 3: the user has
    forgotten the device on the phone too, and the two pair again."""
    async with make_rig(path, pcap=False) as rig:
        bonding_rig(rig)
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await bond_then_reconnect(rig)
        await rig.peripheral.keystore.delete(str(CENTRAL_ADDRESS))
        await asyncio.sleep(0.05)
        try:
            await connection.encrypt()
        except hci.HCI_Error as error:
            assert error.error_code == hci.HCI_ErrorCode.PIN_OR_KEY_MISSING_ERROR, error
        else:
            raise AssertionError('expected encryption to fail with PIN or Key Missing')
        await asyncio.sleep(0.05)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await peripheral_lost
        await asyncio.sleep(0.2)

        await rig.central.keystore.delete(str(PERIPHERAL_ADDRESS))
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await asyncio.sleep(0.05)
        await peer.request_mtu(CLIENT_MTU)
        await connection.pair()
        assert connection.is_encrypted
        await asyncio.sleep(0.1)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await peripheral_lost
        await asyncio.sleep(0.1)


async def scenario_mic_failure(path: Path) -> None:
    """Connection 1 pairs and bonds.  The accessory's stored key then differs from the
    phone's (its key store entry's LTK is replaced).  Connection 2: the central starts
    encryption with its LTK, the peripheral's host answers with a different one, and
    Bumble's peripheral controller, unable to decrypt, ends the link with MIC Failure
    (0x3D): LL_TERMINATE_IND to the central, whose controller reports that reason."""
    async with make_rig(path, pcap=False) as rig:
        bonding_rig(rig)
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await bond_then_reconnect(rig)
        keys = await rig.peripheral.keystore.get(str(CENTRAL_ADDRESS))
        assert keys is not None and keys.ltk is not None
        keys.ltk = PairingKeys.Key(value=bytes(reversed(keys.ltk.value)))
        await rig.peripheral.keystore.update(str(CENTRAL_ADDRESS), keys)
        central_lost = wait_disconnection(connection)
        # Bumble's encrypt() is cancelled by the disconnection.
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(connection.encrypt(), 1.0)
        assert await central_lost == hci.HCI_ErrorCode.CONNECTION_TERMINATED_DUE_TO_MIC_FAILURE_ERROR
        await asyncio.sleep(0.1)


async def scenario_short_key(path: Path) -> None:
    """The accessory's SMP allows 7-byte keys (Maximum Encryption Key Size 7 in its Pairing
    Response), so the pairing's key is 7 bytes.  After encryption the central's host reads the
    key size (HCI Read Encryption Key Size).

    Bumble's virtual controller does not implement Read Encryption Key Size, so this scenario
    gives the central's controller a handler that answers it with the size the pairing
    negotiated (7), as a controller does."""
    async with make_rig(path, pcap=False) as rig:
        rig.central.pairing_config_factory = lambda _connection: bonding_config(PhoneDelegate())
        rig.peripheral.pairing_config_factory = lambda _connection: bonding_config(ShortKeyDelegate())

        def key_size(command: hci.HCI_Read_Encryption_Key_Size_Command) -> hci.HCI_Read_Encryption_Key_Size_ReturnParameters:
            return hci.HCI_Read_Encryption_Key_Size_ReturnParameters(
                status=hci.HCI_ErrorCode.SUCCESS, connection_handle=command.connection_handle, key_size=SHORT_KEY_SIZE
            )

        rig.central_controller.on_hci_read_encryption_key_size_command = key_size  # type: ignore[attr-defined]
        await asyncio.sleep(0.1)
        connection, _, peer = await connect_and_discover(rig)
        await connection.pair()
        assert connection.is_encrypted
        response = await rig.central.host.send_sync_command(
            hci.HCI_Read_Encryption_Key_Size_Command(connection_handle=connection.handle)
        )
        assert response.key_size == SHORT_KEY_SIZE
        await asyncio.sleep(0.1)
        assert await peer.read_value(find_characteristic(peer, BODY_SENSOR_LOCATION)) == BODY_SENSOR_LOCATION_VALUE
        await asyncio.sleep(0.1)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


async def scenario_pairing_unanswered(path: Path) -> None:
    """The central pairs (Passkey Entry: the accessory displays, the phone's user must type);
    the phone's prompt opens and nobody answers it.  The accessory gives up after its pairing
    window (5 s) and ends the link (0x13): neither encryption nor Pairing Failed."""
    async with make_rig(path, pcap=False) as rig:
        delegate = SilentPhoneDelegate()
        rig.central.pairing_config_factory = lambda _connection: bonding_config(delegate)
        rig.peripheral.pairing_config_factory = lambda _connection: bonding_config(DisplayingDelegate())
        await asyncio.sleep(0.1)
        connection, peripheral_connection, peer = await connect_and_discover(rig)
        pairing = asyncio.create_task(connection.pair())
        await delegate.prompted.wait()
        await asyncio.sleep(ACCESSORY_PAIRING_WINDOW_S)
        central_lost = wait_disconnection(connection)
        await peripheral_connection.disconnect(REMOTE_USER_TERMINATED)
        assert await central_lost == REMOTE_USER_TERMINATED
        pairing.cancel()
        with contextlib.suppress(BaseException):
            await pairing
        await asyncio.sleep(0.1)


# The parameters the accessory of remote-parameter-request asks for: first 7.5-10 ms with a 1 s
# timeout (outside Apple's guidelines: under 15 ms, max not 15 ms above min, timeout under 2 s),
# then 30-45 ms, latency 0, 4 s (inside them). In 1.25 ms and 10 ms units.
REFUSED_PARAMETERS = (6, 8, 0, 100)
ACCEPTED_PARAMETERS = (24, 36, 0, 400)


def outside_apple_guidelines(interval_min: int, interval_max: int, latency: int, timeout: int) -> bool:
    """What an iOS central may refuse (Apple's Accessory Design Guidelines, "Connection
    Parameters"; Formats/diagnose.md lists the rules)."""
    min_ms, max_ms, timeout_ms = interval_min * 1.25, interval_max * 1.25, timeout * 10
    effective = max_ms * (latency + 1)
    return not (
        latency <= 30
        and 2000 <= timeout_ms <= 6000
        and min_ms >= 15
        and interval_min % 12 == 0
        and (max_ms >= min_ms + 15 or interval_min == interval_max == 12)
        and effective <= 2000
        and timeout_ms > effective * 3
    )


async def scenario_remote_parameter_request(path: Path) -> None:
    """The accessory asks for new connection parameters over the link layer: its host sends LE
    Connection Update, which a peripheral's controller turns into LL_CONNECTION_PARAM_REQ; the
    central's controller hands the request to its host as HCI LE Remote Connection Parameter
    Request.  The central's host answers as an iOS central may: the first request (7.5-10 ms,
    1 s timeout) breaks Apple's guidelines and is rejected (LE Remote Connection Parameter
    Request Negative Reply, Unacceptable Connection Parameters 0x3B); the accessory asks again
    for 30-45 ms with a 4 s timeout, which the host accepts (LE Remote Connection Parameter
    Request Reply), and the central's controller updates the link (LE Connection Update
    Complete).  Then the central hangs up.

    Bumble's virtual controller has no Connection Parameters Request procedure (a peripheral's
    LE Connection Update goes out as a central's LL_CONNECTION_UPDATE_IND, and the two reply
    commands are unknown to it), and Bumble's host accepts every request.  So the script plays
    the controllers' part: the peripheral controller's LE Connection Update handler answers
    Command Status and writes the LE Remote Connection Parameter Request event into the central's
    host (the LL_CONNECTION_PARAM_REQ crossing the air); the central controller's handlers of
    the two replies answer Command Complete, then either send LL_CONNECTION_UPDATE_IND with the
    accepted parameters (Bumble's own update path: both controllers report LE Connection Update
    Complete) or report the rejection to the peripheral's host (its LE Connection Update
    Complete with status 0x3B, as LL_REJECT_EXT_IND makes a controller do).  The host's choice
    is the script's phone policy (``outside_apple_guidelines``)."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection, _ = await connect_and_discover(rig)
        central_controller, peripheral_controller = rig.central_controller, rig.peripheral_controller

        def ask_over_the_air(command: hci.HCI_LE_Connection_Update_Command) -> None:
            peripheral_controller._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
            central_link = central_controller.le_connections[PERIPHERAL_ADDRESS]
            central_controller.send_hci_packet(
                hci.HCI_LE_Remote_Connection_Parameter_Request_Event(
                    connection_handle=central_link.handle,
                    interval_min=command.connection_interval_min,
                    interval_max=command.connection_interval_max,
                    max_latency=command.max_latency,
                    timeout=command.supervision_timeout,
                )
            )

        def accepted(command: hci.HCI_LE_Remote_Connection_Parameter_Request_Reply_Command):
            central_link = central_controller.find_le_connection_by_handle(command.connection_handle)

            def update() -> None:
                # What Bumble's controller does for a central's LE Connection Update.
                central_controller.send_hci_packet(
                    hci.HCI_LE_Connection_Update_Complete_Event(
                        status=hci.HCI_ErrorCode.SUCCESS,
                        connection_handle=command.connection_handle,
                        connection_interval=command.interval_max,
                        peripheral_latency=command.max_latency,
                        supervision_timeout=command.timeout,
                    )
                )
                central_link.send_ll_control_pdu(
                    ll.ConnectionUpdateInd(interval=command.interval_max, latency=command.max_latency, timeout=command.timeout)
                )

            asyncio.get_running_loop().call_later(0.01, update)
            return hci.HCI_StatusAndConnectionHandleReturnParameters(hci.HCI_ErrorCode.SUCCESS, command.connection_handle)

        def rejected(command: hci.HCI_LE_Remote_Connection_Parameter_Request_Negative_Reply_Command):
            def reject() -> None:
                peripheral_link = peripheral_controller.le_connections[CENTRAL_ADDRESS]
                peripheral_controller.send_hci_packet(
                    hci.HCI_LE_Connection_Update_Complete_Event(
                        status=command.reason,
                        connection_handle=peripheral_link.handle,
                        connection_interval=0,
                        peripheral_latency=0,
                        supervision_timeout=0,
                    )
                )

            asyncio.get_running_loop().call_later(0.01, reject)
            return hci.HCI_StatusAndConnectionHandleReturnParameters(hci.HCI_ErrorCode.SUCCESS, command.connection_handle)

        def phone_policy(event: hci.HCI_LE_Remote_Connection_Parameter_Request_Event) -> None:
            parameters = (event.interval_min, event.interval_max, event.max_latency, event.timeout)
            if outside_apple_guidelines(*parameters):
                answer: hci.HCI_Command = hci.HCI_LE_Remote_Connection_Parameter_Request_Negative_Reply_Command(
                    connection_handle=event.connection_handle, reason=UNACCEPTABLE_PARAMETERS
                )
            else:
                answer = hci.HCI_LE_Remote_Connection_Parameter_Request_Reply_Command(
                    connection_handle=event.connection_handle,
                    interval_min=event.interval_min,
                    interval_max=event.interval_max,
                    max_latency=event.max_latency,
                    timeout=event.timeout,
                    min_ce_length=0,
                    max_ce_length=0,
                )
            asyncio.get_running_loop().create_task(rig.central.host.send_sync_command(answer))

        peripheral_controller.on_hci_le_connection_update_command = ask_over_the_air  # type: ignore[method-assign]
        central_controller.on_hci_le_remote_connection_parameter_request_reply_command = accepted  # type: ignore[attr-defined]
        central_controller.on_hci_le_remote_connection_parameter_request_negative_reply_command = rejected  # type: ignore[attr-defined]
        rig.central.host.on_hci_le_remote_connection_parameter_request_event = phone_policy  # type: ignore[method-assign]

        interval_min, interval_max, latency, timeout = REFUSED_PARAMETERS
        try:
            await rig.peripheral.update_connection_parameters(
                peripheral_connection, interval_min * 1.25, interval_max * 1.25, latency, timeout * 10
            )
        except hci.HCI_Error as error:
            assert error.error_code == UNACCEPTABLE_PARAMETERS, error
        else:
            raise AssertionError('expected the central to reject the first parameters')
        await asyncio.sleep(0.2)
        interval_min, interval_max, latency, timeout = ACCEPTED_PARAMETERS
        await rig.peripheral.update_connection_parameters(
            peripheral_connection, interval_min * 1.25, interval_max * 1.25, latency, timeout * 10
        )
        await asyncio.sleep(0.2)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await peripheral_lost
        await asyncio.sleep(0.1)


def end_with_ll_response_timeout(rig: Rig) -> None:
    """What a central's controller does when its procedure's response timer expires: it ends the
    link with LL Response Timeout (0x22) (Bumble's teardown path, as in ll-response-timeout); the
    peripheral's controller, not recorded, loses a central that went quiet (0x08)."""
    rig.central_controller.on_le_disconnected(rig.central_controller.le_connections[PERIPHERAL_ADDRESS], LL_RESPONSE_TIMEOUT)
    rig.peripheral_controller.on_le_disconnected(rig.peripheral_controller.le_connections[CENTRAL_ADDRESS], CONNECTION_TIMEOUT)


async def scenario_phy_update_unanswered(path: Path) -> None:
    """Connected and notifying, the central's host asks for the 2M PHY (LE Set PHY); the peer's
    link layer never answers the PHY update procedure, while its data still flows; 40 s later the
    central's controller reports the procedure failed (LE PHY Update Complete, status 0x22, still
    on the 1M PHY) and ends the link with LL Response Timeout (0x22).

    Bumble's virtual controller does not implement LE Set PHY (it would answer Unknown HCI
    Command), so the central controller's handler is the script's: Command Status (pending),
    nothing to the peer, and after 40 s the LE PHY Update Complete with 0x22 and the teardown
    of ``end_with_ll_response_timeout``."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        _, received = await subscribe_heart_rate(rig, connection)
        await notify(rig, received, [bytes([0x00, 0x48])], 0.1)
        await leave_procedure_unanswered(
            rig,
            connection,
            received,
            'on_hci_le_set_phy_command',
            lambda command: hci.HCI_LE_PHY_Update_Complete_Event(
                status=LL_RESPONSE_TIMEOUT,
                connection_handle=command.connection_handle,
                tx_phy=hci.Phy.LE_1M,
                rx_phy=hci.Phy.LE_1M,
            ),
            lambda: rig.central.set_connection_phy(connection, tx_phys=[hci.Phy.LE_2M], rx_phys=[hci.Phy.LE_2M]),
        )
        await asyncio.sleep(0.1)


async def scenario_encryption_unanswered(path: Path) -> None:
    """Connection 1 pairs and bonds.  Connection 2: the central starts encryption with the stored
    key (LE Enable Encryption); the accessory's host never answers its controller's LE Long Term
    Key Request (a firmware that stalls there), so the encryption start procedure is never
    answered and, 40 s later, the central's controller ends the link with LL Response Timeout
    (0x22).  No Encryption Change: the procedure did not complete.

    Bumble's own code up to the stall (LE Enable Encryption, Command Status, LL_ENC_REQ, the
    peripheral controller's LE Long Term Key Request, which the peripheral's host is made to
    ignore); the virtual controller has no procedure timer, so the end is the script's
    (``end_with_ll_response_timeout``)."""
    async with make_rig(path, pcap=False) as rig:
        bonding_rig(rig)
        await asyncio.sleep(0.1)
        connection, _ = await bond_then_reconnect(rig)
        rig.peripheral.host.on_hci_le_long_term_key_request_event = lambda _event: None  # type: ignore[method-assign]
        await asyncio.sleep(0.05)
        central_lost = wait_disconnection(connection)
        encryption = asyncio.create_task(connection.encrypt())
        await asyncio.sleep(LL_RESPONSE_TIMEOUT_S)
        end_with_ll_response_timeout(rig)
        assert await central_lost == LL_RESPONSE_TIMEOUT
        encryption.cancel()
        with contextlib.suppress(BaseException):
            await encryption
        await asyncio.sleep(0.1)


def create_connection_to(address: hci.Address) -> hci.HCI_LE_Create_Connection_Command:
    """LE Create Connection to ``address`` as Bumble's Device.connect sends it
    (its default parameters), for an attempt the Device would not make
    itself: one to a peer it is already connected to, or already connecting to."""
    return hci.HCI_LE_Create_Connection_Command(
        le_scan_interval=96,
        le_scan_window=96,
        initiator_filter_policy=0,
        peer_address_type=hci.OwnAddressType.RANDOM,
        peer_address=address,
        own_address_type=hci.OwnAddressType.RANDOM,
        connection_interval_min=24,
        connection_interval_max=40,
        max_latency=0,
        supervision_timeout=72,
        min_ce_length=0,
        max_ce_length=0,
    )


async def scenario_connect_while_busy(path: Path) -> None:
    """Two connects to the same peer while one is under way, as concurrent
    connectGatt calls or a reconnect loop make them: first while the first
    attempt is still pending (the peer does not advertise yet), which Bumble's
    controller refuses with Command Disallowed (0x0C); then, once connected,
    another attempt to the peer already connected, which stays pending (the
    peer no longer advertises) until the host cancels it 2 s later (Bumble's
    controller then sends no completion, see cancelled-connect)."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        peripheral_side: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        rig.peripheral.once('connection', peripheral_side.set_result)
        first = asyncio.create_task(rig.central.connect(PERIPHERAL_ADDRESS, timeout=None))
        await asyncio.sleep(0.5)
        await rig.central.host.send_command(create_connection_to(PERIPHERAL_ADDRESS), check_result=False)
        await asyncio.sleep(0.5)
        await rig.peripheral.start_advertising()
        connection = await first
        await peripheral_side
        await asyncio.sleep(0.5)
        await rig.central.host.send_command(create_connection_to(PERIPHERAL_ADDRESS), check_result=False)
        await asyncio.sleep(2.0)
        await rig.central.host.send_command(hci.HCI_LE_Create_Connection_Cancel_Command(), check_result=False)
        await asyncio.sleep(0.5)
        await connection.disconnect()
        await asyncio.sleep(0.1)


async def scenario_notifications_not_restored(path: Path) -> None:
    """Connection 1: connect, discover, pair and bond, subscribe to Heart Rate Measurement,
    three notifications, hang up.  Connection 2: connect again, encrypt with the bond, and,
    as an app that expects the subscription to survive the bond, write no CCCD; the
    peripheral's server (Bumble keeps no CCCD state across connections) sends nothing for
    2 s, then the central hangs up."""
    async with make_rig(path, pcap=False) as rig:
        bonding_rig(rig)
        connection, peripheral_connection = await connect(rig)
        await rig.peripheral.stop_advertising()
        peer, received = await subscribe_heart_rate(rig, connection)
        await connection.pair()
        assert connection.is_encrypted
        await notify(rig, received, [b'\x00\x48', b'\x00\x49', b'\x00\x4a'], 0.1)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await peripheral_lost
        await asyncio.sleep(0.2)
        assert await rig.central.keystore.get(str(PERIPHERAL_ADDRESS)) is not None
        connection, peripheral_connection = await connect(rig)
        await rig.peripheral.stop_advertising()
        await connection.encrypt()
        assert connection.is_encrypted
        await rig.peripheral.notify_subscribers(rig.gatt['hrm'], b'\x00\x4b')
        await asyncio.sleep(2.0)
        peripheral_lost = wait_disconnection(peripheral_connection)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await peripheral_lost
        await asyncio.sleep(0.1)


# -----------------------------------------------------------------------------
# diagnose, issue 43 §5: a peer that ends the link after a procedure, values too long, a scan
# filter that cannot match
# -----------------------------------------------------------------------------
DATA_LENGTH_OCTETS = 251
DATA_LENGTH_TIME = 2120


async def scenario_ended_after_data_length(path: Path) -> None:
    """Connected, MTU 247 and discovery done, the central's host asks for 251-byte link-layer
    payloads (LE Set Data Length); its controller completes the procedure at once (LE Data Length
    Change: 251 bytes, 2120 µs each way) and, 0.1 s later, the peripheral's host ends the link
    (0x13), as an accessory whose firmware cannot take 251-byte PDUs does.

    Bumble's virtual controller does not implement LE Set Data Length (it would answer Unknown HCI
    Command), so the central controller's handler is the script's: Command Complete (success) and,
    20 ms later, the LE Data Length Change a controller sends when the procedure completes."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, peripheral_connection = await connect(rig)
        peer = Peer(connection)
        await peer.request_mtu(CLIENT_MTU)
        await discover(peer)
        controller = rig.central_controller

        def set_data_length(command: Any) -> hci.HCI_StatusAndConnectionHandleReturnParameters:
            def complete() -> None:
                controller.send_hci_packet(
                    hci.HCI_LE_Data_Length_Change_Event(
                        connection_handle=command.connection_handle,
                        max_tx_octets=command.tx_octets,
                        max_tx_time=command.tx_time,
                        max_rx_octets=DATA_LENGTH_OCTETS,
                        max_rx_time=DATA_LENGTH_TIME,
                    )
                )

            asyncio.get_running_loop().call_later(0.02, complete)
            return hci.HCI_StatusAndConnectionHandleReturnParameters(
                status=hci.HCI_ErrorCode.SUCCESS, connection_handle=command.connection_handle
            )

        controller.on_hci_le_set_data_length_command = set_data_length  # type: ignore[attr-defined]
        await asyncio.sleep(0.2)
        central_lost = wait_disconnection(connection)
        await rig.central.host.send_command(
            hci.HCI_LE_Set_Data_Length_Command(
                connection_handle=connection.handle, tx_octets=DATA_LENGTH_OCTETS, tx_time=DATA_LENGTH_TIME
            ),
            check_result=True,
        )
        await asyncio.sleep(0.12)
        await peripheral_connection.disconnect(REMOTE_USER_TERMINATED)
        assert await central_lost == REMOTE_USER_TERMINATED
        await asyncio.sleep(0.1)


def att_pdu(opcode: int, *fields: bytes) -> bytes:
    return bytes([opcode]) + b''.join(fields)


async def scenario_value_too_long(path: Path) -> None:
    """Three ATT writes and reads longer than the rules allow, sent raw by the central (Bumble's
    client would split them, as a phone's stack does) to the read/write characteristic AAA1
    (value 0x0018), and what Bumble's server answers:

    1. before any Exchange MTU (ATT_MTU 23): a Write Request with a 40-byte value, over
       ATT_MTU - 3 = 20; the server takes it (Write Response);
    2. after Exchange MTU (247): three Prepare Write Requests of 240, 240 and 100 bytes at offsets
       0, 240 and 480, a 580-byte value, then Execute Write: the server refuses it with Invalid
       Attribute Value Length (0x0D), its check of the 512-byte limit;
    3. the peripheral's app sets AAA1 to 600 bytes; a Read Request and two Read Blob Requests
       (offsets 246 and 492) read it whole: the server hands out all 600 bytes."""
    async with make_rig(path, pcap=False) as rig:
        await asyncio.sleep(0.1)
        connection, _ = await connect(rig)
        handle = struct.pack('<H', 0x0018)
        send = lambda pdu: connection.send_l2cap_pdu(ATT_CID, pdu)  # noqa: E731
        await asyncio.sleep(0.05)
        send(att_pdu(0x12, handle, CUSTOM_CONFIG_WRITTEN))
        await asyncio.sleep(0.1)
        peer = Peer(connection)
        await peer.request_mtu(CLIENT_MTU)
        await asyncio.sleep(0.05)
        for offset, length in ((0, 240), (240, 240), (480, 100)):
            send(att_pdu(0x16, handle, struct.pack('<H', offset), bytes((offset + i) & 0xFF for i in range(length))))
            await asyncio.sleep(0.05)
        send(att_pdu(0x18, bytes([0x01])))
        await asyncio.sleep(0.1)
        rig.gatt['custom_config'].value = bytes(i & 0xFF for i in range(600))
        send(att_pdu(0x0A, handle))
        await asyncio.sleep(0.05)
        for offset in (CLIENT_MTU - 1, 2 * (CLIENT_MTU - 1)):
            send(att_pdu(0x0C, handle, struct.pack('<H', offset)))
            await asyncio.sleep(0.05)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


APCF_OPCODE = 0xFD57
# The service the app filters on: the peripheral's custom service, in its database (0x0016-0x0018)
# but not in its advertising (which lists 0x180D only).
FILTERED_SERVICE = CUSTOM_SERVICE


def emulate_apcf(controller: Controller) -> None:
    """Give a virtual controller Android's advertising packet content filter (APCF, the vendor
    command 0xFD57 of packages/modules/Bluetooth's `btm_ble_adv_filter.cc`), as far as a service
    UUID filter goes: each sub-command is answered with Command Complete (success), and while the
    filter is enabled with a service UUID filter set, only advertising reports whose data lists
    that UUID reach the host.  Bumble's controller has no vendor commands (it would not answer)."""
    state: dict[str, Any] = {'enabled': False, 'uuids': []}
    on_command = controller.on_hci_command_packet
    send = controller.send_hci_packet

    def command(packet: hci.HCI_Command) -> None:
        if packet.op_code != APCF_OPCODE:
            on_command(packet)
            return
        parameters = bytes(packet.parameters)
        sub, action = parameters[0], parameters[1]
        if sub == 0x00:
            state['enabled'] = action == 0x01
            answer = bytes([0x00, sub, action])
        else:
            if sub == 0x03 and action == 0x00:
                size = (len(parameters) - 3) // 2
                state['uuids'].append(parameters[3 : 3 + size])
            elif sub == 0x03 and action == 0x02:
                state['uuids'] = []
            answer = bytes([0x00, sub, action, 0x10])
        send(
            hci.HCI_Command_Complete_Event(
                num_hci_command_packets=1,
                command_opcode=APCF_OPCODE,
                return_parameters=hci.HCI_GenericReturnParameters(data=answer),
            )
        )

    def deliver(packet: hci.HCI_Packet) -> None:
        if state['enabled'] and state['uuids'] and isinstance(packet, hci.HCI_LE_Advertising_Report_Event):
            if not any(uuid in bytes(report.data) for report in packet.reports for uuid in state['uuids']):
                return
        send(packet)

    controller.on_hci_command_packet = command  # type: ignore[method-assign]
    controller.send_hci_packet = deliver  # type: ignore[method-assign]


async def apcf(rig: Rig, *parameters: int | bytes) -> None:
    payload = b''.join(bytes([p]) if isinstance(p, int) else p for p in parameters)
    await rig.central.host.send_command(hci.HCI_Command(payload, op_code=APCF_OPCODE))  # type: ignore[call-overload]


async def scenario_scan_filter_unmatched(path: Path) -> None:
    """An Android-style filtered scan that cannot find its accessory: the central's host sets an
    APCF service UUID filter on the custom service 0000AAA0-… (filter index 1) and enables the
    filter, then scans 2 s: the peripheral advertises (Heart Rate 0x180D only), and the controller
    reports nothing.  The filter is turned off, a second scan of 1 s hears the peripheral, the
    central connects and discovers: AAA0 is in the peripheral's database.  Then it hangs up.
    The controller's filtering is the script's (``emulate_apcf``)."""
    async with make_rig(path, pcap=False) as rig:
        emulate_apcf(rig.central_controller)
        await asyncio.sleep(0.1)
        await rig.peripheral.start_advertising()
        # Enable, feature selection (index 1: service UUID, bit 2), the UUID with its mask.
        await apcf(rig, 0x00, 0x01)
        await apcf(rig, 0x01, 0x00, 0x01, struct.pack('<HHBBB', 1 << 2, 0, 0, 0x80, 0))
        await apcf(rig, 0x03, 0x00, 0x01, bytes(FILTERED_SERVICE.to_bytes()), b'\xff' * 16)
        await rig.central.start_scanning(legacy=True, filter_duplicates=False)
        await asyncio.sleep(2.0)
        await rig.central.stop_scanning(legacy=True)
        await apcf(rig, 0x00, 0x00)
        await rig.central.start_scanning(legacy=True, filter_duplicates=False)
        await asyncio.sleep(1.0)
        await rig.central.stop_scanning(legacy=True)
        peripheral_side: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        rig.peripheral.once('connection', peripheral_side.set_result)
        connection = await rig.central.connect(PERIPHERAL_ADDRESS)
        await peripheral_side
        peer = Peer(connection)
        await peer.request_mtu(CLIENT_MTU)
        await peer.discover_services()
        await asyncio.sleep(0.1)
        await connection.disconnect(REMOTE_USER_TERMINATED)
        await asyncio.sleep(0.1)


SCENARIOS: list[tuple[str, Callable[[Path], Awaitable[None]]]] = [
    ('reconnect-supervision-timeout.btsnoop', scenario_reconnect_supervision_timeout),
    ('att-errors.btsnoop', scenario_att_errors),
    ('peer-disconnect.btsnoop', scenario_peer_disconnect),
    ('cancelled-connect.btsnoop', scenario_cancelled_connect),
    ('scan.btsnoop', scenario_scan),
    ('peripheral-server.btsnoop', scenario_peripheral_server),
    ('peripheral-disconnect-mid-notification.btsnoop', scenario_peripheral_disconnect_mid_notification),
    ('restore-scanning.btsnoop', scenario_restore_scanning),
    ('restore-pending-connection.btsnoop', scenario_restore_pending_connection),
    ('restore-connected.btsnoop', scenario_restore_connected),
    ('restore-out-of-range.btsnoop', scenario_restore_out_of_range),
    ('restore-notifying.btsnoop', scenario_restore_notifying),
    ('pairing-retry.btsnoop', scenario_pairing_retry),
    ('service-changed.btsnoop', scenario_service_changed),
    ('peer-also-client.btsnoop', scenario_peer_also_client),
    ('peripheral-and-client.btsnoop', scenario_peripheral_and_client),
    ('reconnect-answers-differ.btsnoop', scenario_reconnect_answers_differ),
    ('pklg-header-notes.btsnoop', scenario_pklg_header_notes),
    ('pairing-midway.btsnoop', scenario_pairing_midway),
    ('pairing-cancelled.btsnoop', scenario_pairing_cancelled),
    ('power-off-pending.btsnoop', scenario_power_off_pending),
    ('unconfirmed-indication.btsnoop', scenario_unconfirmed_indication),
    ('ll-response-timeout.btsnoop', scenario_ll_response_timeout),
    ('timeout-after-update.btsnoop', scenario_timeout_after_update),
    ('unacceptable-parameters.btsnoop', scenario_unacceptable_parameters),
    ('bond-lost.btsnoop', scenario_bond_lost),
    ('mic-failure.btsnoop', scenario_mic_failure),
    ('short-key.btsnoop', scenario_short_key),
    ('pairing-unanswered.btsnoop', scenario_pairing_unanswered),
    ('remote-parameter-request.btsnoop', scenario_remote_parameter_request),
    ('phy-update-unanswered.btsnoop', scenario_phy_update_unanswered),
    ('encryption-unanswered.btsnoop', scenario_encryption_unanswered),
    ('connect-timeout.btsnoop', scenario_connect_timeout),
    ('connect-unheard.btsnoop', scenario_connect_unheard),
    ('connect-while-busy.btsnoop', scenario_connect_while_busy),
    ('notifications-not-restored.btsnoop', scenario_notifications_not_restored),
    ('ended-after-data-length.btsnoop', scenario_ended_after_data_length),
    ('value-too-long.btsnoop', scenario_value_too_long),
    ('scan-filter-unmatched.btsnoop', scenario_scan_filter_unmatched),
    ('bonded-database-changed.btsnoop', scenario_bonded_database_changed),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        'outdir',
        nargs='?',
        default=str(Path(__file__).resolve().parent),
        help='directory to write the .btsnoop files to (default: Captures/)',
    )
    parser.add_argument('-v', '--verbose', action='store_true')
    parser.add_argument(
        '--only',
        nargs='+',
        metavar='NAME',
        help='record only these captures (file names, e.g. peripheral-server.btsnoop)',
    )
    parser.add_argument(
        '--pklg-notes',
        nargs=2,
        metavar=('SOURCE', 'DESTINATION'),
        help='only write DESTINATION: the iOS header notes, then the records of the little-endian '
        'PacketLogger file SOURCE (bletrace convert of pklg-header-notes.btsnoop)',
    )
    args = parser.parse_args()
    if args.pklg_notes:
        source, destination = (Path(name) for name in args.pklg_notes)
        assert source.resolve() != destination.resolve(), 'SOURCE and DESTINATION must differ'
        prepend_pklg_notes(source, destination)
        print(f'wrote {destination} ({destination.stat().st_size} bytes)')
        return 0

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.ERROR)
    outdir = Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)

    version = getattr(bumble, '__version__', 'unknown')
    print(f'bumble {version}')
    for file_name, scenario in SCENARIOS:
        if args.only and file_name not in args.only:
            continue
        path = outdir / file_name
        # One fresh event loop, link, controllers and devices per capture.
        asyncio.run(scenario(path))
        print(f'wrote {path} ({path.stat().st_size} bytes)')
    return 0


if __name__ == '__main__':
    sys.exit(main())

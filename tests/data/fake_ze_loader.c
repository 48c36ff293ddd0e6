/* A stand-in for the Level Zero loader (libze_loader.so.1), for tests only.
 *
 * Devices come from $FAKE_ZE_DEVICES: "VENDOR:IPVERSION,..." in hex, one
 * driver holding them all. $FAKE_ZE_FAIL=1 makes initialisation fail;
 * $FAKE_ZE_FAIL_DEVICE=N makes zeDeviceGetProperties fail for device N (from 0).
 * Built with -DWITH_INIT_DRIVERS it exports zeInitDrivers (API 1.10+);
 * otherwise only zeInit + zeDriverGet. Structures follow ze_api.h; a wrong
 * stype is refused the way a real driver would refuse it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t stype; void *pNext; uint32_t flags; } ze_init_driver_type_desc_t;
typedef struct { uint32_t stype; void *pNext; uint32_t ipVersion; } ze_device_ip_version_ext_t;
typedef struct {
    uint32_t stype; void *pNext; uint32_t type; uint32_t vendorId; uint32_t deviceId;
    uint32_t flags; uint32_t subdeviceId; uint32_t coreClockRate; uint64_t maxMemAllocSize;
    uint32_t maxHardwareContexts; uint32_t maxCommandQueuePriority; uint32_t numThreadsPerEU;
    uint32_t physicalEUSimdWidth; uint32_t numEUsPerSubslice; uint32_t numSubslicesPerSlice;
    uint32_t numSlices; uint64_t timerResolution; uint32_t timestampValidBits;
    uint32_t kernelTimestampValidBits; uint8_t uuid[16]; char name[256];
} ze_device_properties_t;

#define ERR_UNINIT 0x78000001
#define ERR_INVALID 0x78000004
#define MAXDEV 16

static int inited;
static int ndev;
static uint32_t vendors[MAXDEV], ips[MAXDEV];
static int driver_token = 1;
static int device_tokens[MAXDEV];

static int load(void) {
    const char *fail = getenv("FAKE_ZE_FAIL");
    if (fail && fail[0] == '1') return ERR_UNINIT;
    const char *spec = getenv("FAKE_ZE_DEVICES");
    ndev = 0;
    while (spec && *spec && ndev < MAXDEV) {
        char *end;
        vendors[ndev] = (uint32_t)strtoul(spec, &end, 16);
        if (*end != ':') return ERR_INVALID;
        ips[ndev] = (uint32_t)strtoul(end + 1, &end, 16);
        ndev++;
        spec = (*end == ',') ? end + 1 : end;
    }
    inited = 1;
    return 0;
}

static int drivers(uint32_t *count, void **handles) {
    if (!inited) return ERR_UNINIT;
    if (handles == NULL) { *count = 1; return 0; }
    if (*count >= 1) handles[0] = &driver_token;
    *count = 1;
    return 0;
}

#ifdef WITH_INIT_DRIVERS
int zeInitDrivers(uint32_t *count, void **handles, ze_init_driver_type_desc_t *desc) {
    if (desc == NULL || desc->stype != 0x00020021 || desc->flags != 1) return ERR_INVALID;
    if (!inited) { int r = load(); if (r) return r; }
    return drivers(count, handles);
}
#endif

int zeInit(uint32_t flags) { return flags == 1 ? load() : ERR_INVALID; }
int zeDriverGet(uint32_t *count, void **handles) { return drivers(count, handles); }

int zeDeviceGet(void *driver, uint32_t *count, void **devices) {
    if (driver != &driver_token) return ERR_INVALID;
    if (devices == NULL) { *count = (uint32_t)ndev; return 0; }
    for (uint32_t i = 0; i < *count && i < (uint32_t)ndev; i++) { device_tokens[i] = (int)i; devices[i] = &device_tokens[i]; }
    return 0;
}

int zeDeviceGetProperties(void *device, ze_device_properties_t *props) {
    if (props == NULL || props->stype != 0x3) return ERR_INVALID;
    int i = *(int *)device;
    const char *bad = getenv("FAKE_ZE_FAIL_DEVICE");
    if (bad && *bad && atoi(bad) == i) return ERR_UNINIT;
    ze_device_ip_version_ext_t *ext = (ze_device_ip_version_ext_t *)props->pNext;
    if (ext == NULL || ext->stype != 0x1000f) return ERR_INVALID;
    props->type = 1;
    props->vendorId = vendors[i];
    props->deviceId = 0x56a5;
    props->maxMemAllocSize = 1ull << 32;
    props->timerResolution = 52;
    memset(props->uuid, 0xab, sizeof props->uuid);
    memset(props->name, 'x', sizeof props->name - 1);
    props->name[sizeof props->name - 1] = '\0';
    ext->ipVersion = ips[i];
    return 0;
}

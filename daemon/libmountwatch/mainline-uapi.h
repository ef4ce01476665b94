/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel ABI of mainline interfaces newer than the series' 6.12 UAPI copy in
 * include/linux/: statmount(2)/listmount(2) as of 6.15 and fanotify's mount
 * events (6.15). Userspace-only definitions, so they never enter
 * include/linux/ (which tests/check-uapi-headers compares with the series'
 * headers_install). Our own names (mw_statmount, mw_mnt_id_req) so that this
 * header and <linux/mount.h> can be included together; the layouts are the
 * kernel's, checked below.
 */
#ifndef MOUNTWATCH_MAINLINE_UAPI_H
#define MOUNTWATCH_MAINLINE_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

/*
 * Since 4.18's syscall table unification (424 and up) the numbers are the
 * same on x86_64, i386 and every asm-generic architecture; only alpha and
 * MIPS add their offsets.
 */
#ifndef __NR_statmount
#if defined(__alpha__)
#define __NR_statmount 567
#define __NR_listmount 568
#elif defined(_MIPS_SIM) && _MIPS_SIM == _MIPS_SIM_ABI32
#define __NR_statmount 4457
#define __NR_listmount 4458
#elif defined(_MIPS_SIM) && _MIPS_SIM == _MIPS_SIM_NABI32
#define __NR_statmount 6457
#define __NR_listmount 6458
#elif defined(_MIPS_SIM) && _MIPS_SIM == _MIPS_SIM_ABI64
#define __NR_statmount 5457
#define __NR_listmount 5458
#else
#define __NR_statmount 457
#define __NR_listmount 458
#endif
#endif

/* struct statmount as of 6.15 (uid/gid maps: 6.15 too). */
struct mw_statmount {
	uint32_t size;
	uint32_t mnt_opts;          /* [str] LSM + filesystem options (6.11) */
	uint64_t mask;
	uint32_t sb_dev_major;
	uint32_t sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags;          /* SB_RDONLY, SB_SYNCHRONOUS, SB_DIRSYNC, SB_LAZYTIME */
	uint32_t fs_type;           /* [str] */
	uint64_t mnt_id;            /* unique ID */
	uint64_t mnt_parent_id;     /* unique ID of the parent; == mnt_id for the root */
	uint32_t mnt_id_old;        /* mountinfo's IDs */
	uint32_t mnt_parent_id_old;
	uint64_t mnt_attr;          /* MOUNT_ATTR_* */
	uint64_t mnt_propagation;   /* MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE */
	uint64_t mnt_peer_group;
	uint64_t mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root;          /* [str] */
	uint32_t mnt_point;         /* [str] */
	uint64_t mnt_ns_id;
	uint32_t fs_subtype;        /* [str] 6.13 */
	uint32_t sb_source;         /* [str] 6.13 */
	uint32_t opt_num;           /* 6.13 */
	uint32_t opt_array;         /* [str] 6.13 */
	uint32_t opt_sec_num;       /* 6.13 */
	uint32_t opt_sec_array;     /* [str] 6.13 */
	uint64_t supported_mask;    /* 6.15 */
	uint32_t mnt_uidmap_num;
	uint32_t mnt_uidmap;
	uint32_t mnt_gidmap_num;
	uint32_t mnt_gidmap;
	uint64_t __spare2[43];
	char str[];
};

_Static_assert(offsetof(struct mw_statmount, mnt_ns_id) == 0x70, "statmount layout");
_Static_assert(offsetof(struct mw_statmount, supported_mask) == 0x90, "statmount layout");
_Static_assert(sizeof(struct mw_statmount) == 512, "statmount layout");

struct mw_mnt_id_req {
	uint32_t size;
	uint32_t mnt_ns_fd;         /* 6.18: a namespace fd instead of mnt_ns_id */
	uint64_t mnt_id;
	uint64_t param;             /* statmount: the mask; listmount: the last ID listed */
	uint64_t mnt_ns_id;
};

/* ioctl on an nsfs fd: the namespace's 64-bit ID (6.11), what mnt_ns_id takes. */
#define MW_NS_GET_MNTNS_ID _IOR(0xb7, 0x5, uint64_t)

/* statx(2)'s stx_mnt_id as the 64-bit unique mount ID (6.8); STATX_MNT_ID (5.8) is glibc's. */
#define MW_STATX_MNT_ID_UNIQUE 0x00004000U

#define MW_MNT_ID_REQ_SIZE_VER0 24
#define MW_MNT_ID_REQ_SIZE_VER1 32

#define MW_STATMOUNT_SB_BASIC 0x0001U
#define MW_STATMOUNT_MNT_BASIC 0x0002U
#define MW_STATMOUNT_PROPAGATE_FROM 0x0004U
#define MW_STATMOUNT_MNT_ROOT 0x0008U
#define MW_STATMOUNT_MNT_POINT 0x0010U
#define MW_STATMOUNT_FS_TYPE 0x0020U
#define MW_STATMOUNT_MNT_NS_ID 0x0040U
#define MW_STATMOUNT_MNT_OPTS 0x0080U      /* 6.11 */
#define MW_STATMOUNT_FS_SUBTYPE 0x0100U    /* 6.13 */
#define MW_STATMOUNT_SB_SOURCE 0x0200U     /* 6.13 */
#define MW_STATMOUNT_OPT_ARRAY 0x0400U     /* 6.13 */
#define MW_STATMOUNT_OPT_SEC_ARRAY 0x0800U /* 6.13 */
#define MW_STATMOUNT_SUPPORTED_MASK 0x1000U /* 6.15 */

#define MW_LSMT_ROOT 0xffffffffffffffffULL

/* The superblock flags that statmount's sb_flags carries. */
#define MW_SB_RDONLY 0x0001U
#define MW_SB_SYNCHRONOUS 0x0010U
#define MW_SB_DIRSYNC 0x0080U
#define MW_SB_LAZYTIME 0x02000000U

/* fanotify mount events (6.15). */
#ifndef FAN_REPORT_MNT
#define FAN_REPORT_MNT 0x00004000
#endif
#ifndef FAN_MARK_MNTNS
#define FAN_MARK_MNTNS 0x00000110
#endif
#ifndef FAN_MNT_ATTACH
#define FAN_MNT_ATTACH 0x01000000
#endif
#ifndef FAN_MNT_DETACH
#define FAN_MNT_DETACH 0x02000000
#endif
#ifndef FAN_EVENT_INFO_TYPE_MNT
#define FAN_EVENT_INFO_TYPE_MNT 7
#endif

/* struct fanotify_event_info_mnt: the info header, then (aligned) the ID. */
struct mw_fanotify_info_mnt {
	uint8_t info_type;
	uint8_t pad;
	uint16_t len;
	uint64_t mnt_id;
};

_Static_assert(offsetof(struct mw_fanotify_info_mnt, mnt_id) == 8, "fanotify_event_info_mnt");

#endif /* MOUNTWATCH_MAINLINE_UAPI_H */

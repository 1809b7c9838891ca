/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `gpreempt-ctl bugreport`: one archive for a first report (ctl_bugreport.c
 * over the collectors of ctl_bugreport_sys.c and the members of
 * ctl_bugreport_buf.c).
 */
#ifndef GP_CTL_BUGREPORT_H
#define GP_CTL_BUGREPORT_H

/* argv[0] = "bugreport"; returns an exit code. */
int ctl_bugreport_main(int argc, char **argv);

#endif

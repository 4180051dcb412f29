/* pview: the memory detail of one process (PVIEW's "Memory Detail"), from
 * the costly objects: Process Address Space (786) for the process's image,
 * mapped and reserved space by protection, and Image (740) for each module
 * it maps. The process is found by ID Process and start time is not needed:
 * the costly snapshot is taken right after the user asks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "pview.h"

static const uint32_t image_prot[8] = {PL_CTR_NO_ACCESS,  PL_CTR_READ_ONLY,      PL_CTR_READ_WRITE,
                                       PL_CTR_WRITE_COPY, PL_CTR_EXECUTABLE,     PL_CTR_EXEC_READ_ONLY,
                                       PL_CTR_EXEC_READ_WRITE, PL_CTR_EXEC_WRITE_COPY};
/* Image, Mapped and Reserved Space: the first index of each group of 8 and
 * the step (2); Reserved Space Exec Write Copy is 742, not 740 (Image). */
static const uint32_t space_first[3] = {PL_CTR_IMAGE_SPACE_NO_ACCESS, PL_CTR_MAPPED_SPACE_NO_ACCESS,
                                        PL_CTR_RESERVED_SPACE_NO_ACCESS};

static uint32_t space_index(int group, int prot)
{
    if (group == 2 && prot == 7) return PL_CTR_RESERVED_SPACE_EXEC_WRITE_COPY;
    return space_first[group] + 2u * (uint32_t)prot;
}

static double value_of(const pl_object *o, uint32_t idx, const pl_instance *in)
{
    pl_counter c;
    uint64_t v;
    if (pl_object_find_counter(o, idx, &c) != PL_OK || !pl_counter_available(&c, in) ||
        pl_counter_value(&c, in, &v) != PL_OK)
        return NAN;
    return (double)v;
}

static int pid_of(const pl_object *o, const pl_instance *in, uint32_t *pid)
{
    pl_counter c;
    uint64_t v;
    if (pl_object_find_counter(o, PL_CTR_ID_PROCESS, &c) != PL_OK || pl_counter_value(&c, in, &v) != PL_OK)
        return 0;
    *pid = (uint32_t)v;
    return 1;
}

void pv_memdetail_free(pv_memdetail *md)
{
    free(md->images);
    memset(md, 0, sizeof *md);
}

int pv_memdetail_read(const void *block, size_t len, uint32_t pid, int64_t start, pv_memdetail *out, pl_error *err)
{
    (void)start;
    memset(out, 0, sizeof *out);
    out->resident = out->private_resident = NAN;
    pl_block b;
    int rc = pl_block_open(&b, block, len, 0, 0, err);
    if (rc != PL_OK) return rc;
    pl_object pas, img, proc;
    int have_pas = pl_block_find_object(&b, PL_OBJ_PROCESS_ADDRESS_SPACE, &pas) == PL_OK;
    int have_img = pl_block_find_object(&b, PL_OBJ_IMAGE, &img) == PL_OK;
    if (!have_pas && !have_img) {
        pv_err(err, PL_E_NOT_FOUND, "the machine offers neither Image nor Process Address Space");
        return PL_E_NOT_FOUND;
    }
    pl_instance in;
    if (have_pas) {
        for (int r = pl_object_instance(&pas, 0, &in); r == PL_OK; r = pl_instance_next(&in, &in)) {
            uint32_t p;
            if (!pid_of(&pas, &in, &p) || p != pid) continue;
            static const char *names[3] = {"Image", "Mapped", "Reserved"};
            for (int g = 0; g < 3; g++) {
                pv_mem_row *row = &out->space[g];
                snprintf(row->name, sizeof row->name, "%s", names[g]);
                row->total = 0;
                for (int k = 0; k < 8; k++) {
                    row->bytes[k] = value_of(&pas, space_index(g, k), &in);
                    row->total += isnan(row->bytes[k]) ? 0 : row->bytes[k];
                }
            }
            out->resident = value_of(&pas, PL_CTR_RESIDENT_BYTES, &in);
            out->private_resident = value_of(&pas, PL_CTR_PRIVATE_RESIDENT_BYTES, &in);
            out->have_space = 1;
            break;
        }
    }
    /* Image instances whose parent is this process: the parent's ID Process. */
    if (have_img && pl_block_find_object(&b, PL_OBJ_PROCESS, &proc) != PL_OK) have_img = 0;
    if (have_img) {
        size_t cap = 0;
        for (int r = pl_object_instance(&img, 0, &in); r == PL_OK; r = pl_instance_next(&in, &in)) {
            pl_object po;
            pl_instance pi;
            uint32_t p;
            if (pl_instance_parent(&in, &po, &pi) != PL_OK || !pid_of(&po, &pi, &p) || p != pid) continue;
            if (out->nimages == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                pv_mem_row *n = realloc(out->images, ncap * sizeof *n);
                if (!n) {
                    pv_memdetail_free(out);
                    pv_err(err, PL_E_NOMEM, "out of memory for the image list");
                    return PL_E_NOMEM;
                }
                out->images = n;
                cap = ncap;
            }
            pv_mem_row *row = &out->images[out->nimages++];
            memset(row, 0, sizeof *row);
            pl_instance_name(&in, row->name, sizeof row->name);
            for (int k = 0; k < 8; k++) {
                row->bytes[k] = value_of(&img, image_prot[k], &in);
                row->total += isnan(row->bytes[k]) ? 0 : row->bytes[k];
            }
        }
    }
    if (!out->have_space && out->nimages == 0) {
        pv_err(err, PL_E_NOT_FOUND, "process %u is not in the costly snapshot (it may have exited)", pid);
        return PL_E_NOT_FOUND;
    }
    return PL_OK;
}

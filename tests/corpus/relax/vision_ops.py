# The operators of detection and volumetric models: roi_align in both layouts and modes, roi_pool,
# get_valid_counts feeding non_max_suppression as upstream's frontends chain them, the two
# non-maximum suppressions (their fixed-shape results: indices padded after the valid count),
# affine_grid in 2-d and 3-d, resize3d and a 3-d transposed convolution, with keyword attributes
# and their defaults; multibox_transform_loc (an SSD / TFLite decode: positional and keyword
# attributes, variances as a tuple or a list of ints, its defaults spelled out, symbolic shapes)
# feeding all_class_non_max_suppression, whose boxes and scores layouts it produces.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class VisionOps:
    @R.function
    def detect(
        feat: R.Tensor((2, 16, 32, 32), "float32"),
        rois: R.Tensor(("r", 5), "float32"),
        data: R.Tensor((2, 10, 6), "float32"),
        valid: R.Tensor((2,), "int32"),
        idx: R.Tensor((2, 10), "int32"),
        boxes: R.Tensor((1, 10, 4), "float32"),
        scores: R.Tensor((1, 3, 10), "float32"),
    ):
        with R.dataflow():
            a = R.vision.roi_align(feat, rois, pooled_size=[7, 7], spatial_scale=0.25)
            m = R.vision.roi_align(feat, rois, [2, 3], 0.5, 2, True, "NCHW", "max")
            nms = R.vision.non_max_suppression(data, valid, idx, max_output_size=5, iou_threshold=0.3, force_suppress=True, top_k=8)
            kept = nms[0]
            soft = R.vision.non_max_suppression(data, valid, idx, soft_nms_sigma=0.5, score_threshold=0.1, id_index=-1)
            sel = R.vision.all_class_non_max_suppression(boxes, scores, R.const(4, "int64"), R.const(0.5, "float32"), R.const(0.0, "float32"))
            tf = R.vision.all_class_non_max_suppression(boxes, scores, R.const(4, "int64"), R.const(0.5, "float32"), R.const(0.0, "float32"), output_format="tensorflow")
            R.output(a, m, kept, soft, sel, tf)
        return (a, m, kept, soft, sel, tf)

    @R.function
    def proposals(
        feat: R.Tensor((2, 16, "h", "w"), "float32"),
        rois: R.Tensor(("r", 5), "float32"),
        data: R.Tensor(("b", 10, 6), "float32"),
    ):
        with R.dataflow():
            p = R.vision.roi_pool(feat, rois, pooled_size=[7, 7], spatial_scale=0.0625)
            q = R.vision.roi_pool(feat, rois, [2, 3], 0.5, "NCHW")
            one = R.vision.roi_pool(feat, rois, 4, 1.0)
            counted = R.vision.get_valid_counts(data, score_threshold=0.25)
            valid = counted[0]
            boxes = counted[1]
            order = counted[2]
            nms = R.vision.non_max_suppression(boxes, valid, order, iou_threshold=0.45, top_k=5)
            any_class = R.vision.get_valid_counts(data, 0.1, -1, 2)
            R.output(p, q, one, nms, any_class)
        return (p, q, one, nms, any_class)

    @R.function
    def ssd(
        logits: R.Tensor((2, 4, 6), "float32"),
        enc: R.Tensor((2, 24), "float32"),
        priors: R.Tensor((1, 6, 4), "float32"),
        dyn_logits: R.Tensor(("b", 3, "n"), "float16"),
        dyn_enc: R.Tensor(("b", "m"), "float16"),
        dyn_priors: R.Tensor((1, "n", 4), "float16"),
    ):
        with R.dataflow():
            dec = R.vision.multibox_transform_loc(logits, enc, priors)
            tfl = R.vision.multibox_transform_loc(logits, enc, priors, True, 0.05, (0.1, 0.1, 0.2, 0.2), False)
            boxes = tfl[0]
            scores = tfl[1]
            sel = R.vision.all_class_non_max_suppression(boxes, scores, R.const(3, "int64"), R.const(0.5, "float32"), R.const(0.25, "float32"))
            raw = R.vision.multibox_transform_loc(logits, enc, priors, variances=[1, 1, 2, 2], apply_softmax=False)
            same = R.vision.multibox_transform_loc(logits, enc, priors, clip=False, threshold=0.0, variances=(1.0, 1.0, 1.0, 1.0), keep_background=True, apply_softmax=True)
            dyn = R.vision.multibox_transform_loc(dyn_logits, dyn_enc, dyn_priors, threshold=0.5, keep_background=False)
            R.output(dec, sel, raw, same, dyn)
        return (dec, sel, raw, same, dyn)

    @R.function
    def grids(
        theta: R.Tensor(("n", 2, 3), "float32"),
        theta3: R.Tensor((1, 3, 4), "float32"),
        vol: R.Tensor((1, 4, 3, 4, 5), "float32"),
        w: R.Tensor((4, 2, 3, 3, 3), "float32"),
    ):
        with R.dataflow():
            g = R.image.affine_grid(theta, R.shape([8, 16]))
            g2 = R.image.affine_grid(theta, (8, 16), align_corners=False)
            g3 = R.image.affine_grid(theta3, R.shape([2, 3, 4]), align_corners=False)
            up = R.image.resize3d(vol, R.shape([6, 8, 10]))
            nn = R.image.resize3d(vol, (6, 8, 10), layout="NCDHW", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor")
            t = R.nn.conv3d_transpose(vol, w, strides=[2, 2, 2], padding=[1, 1, 1], output_padding=[1, 1, 1])
            R.output(g, g2, g3, up, nn, t)
        return (g, g2, g3, up, nn, t)

"""tf.linalg's solvers, factorizations and masks against TF 2.21 (float64): values and gradients.

TF's numbers come from tests/tf_reference/ops_reference.py (section
"tf.linalg"); gradients are of sum(out * weights) as in tests/tf_compare.py.
Singular and eigen vectors are defined up to sign and LAPACK's signs differ
from TF's (Eigen's), so those are compared through |v| and through losses of
their squares; Q and R of QR agree as they are.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.errors import InvalidArgumentError, UnimplementedError
from tests.tf_compare import assert_tf, grads

nan, inf = float("nan"), float("inf")

# Output of ops_reference.py, TF 2.21.0 (CPU).
TF = {
    "solve": [
        [[0.35714285714285704, -0.3571428571428571], [0.3214285714285714, -0.32142857142857145], [0.625, 0.625]],
        [[0.625, -0.26785714285714285], [0.0, -0.3571428571428571], [0.75, 0.6785714285714286]],
    ],
    "solve_grad": [
        [
            [-0.1575390146367529, -0.14178511317307765, 0.11006213851592142],
            [-0.017630088174000885, -0.015867079356600797, -0.4006021379360596],
            [0.09250306250903954, 0.08325275625813561, 0.25811066824934004],
        ],
        [
            [0.13250490967871698, -0.30860433130419124],
            [0.3451638337924489, 0.2957995869052464],
            [-0.33599282211212744, -0.07698424708681663],
        ],
    ],
    "solve_grad_adjoint": [
        [
            [-0.1735845764537119, -0.15334579580866106, 0.1811615724025168],
            [-0.07414253672764834, 0.1335538229831348, 0.0012063421901032515],
            [-0.0007023889070388589, -0.5579656593231708, 0.21401612875073103],
        ],
        [
            [0.188764278252761, -0.2075991028374154],
            [0.40561786087361945, 0.3739507043527775],
            [-0.28841090521590296, 0.003377758132289105],
        ],
    ],
    "triangular_solve": [
        [[1.0, -1.0], [1.0, -3.5], [0.375, 1.5]],
        [[2.0, -2.0], [-0.5, 0.5], [0.75, 0.5]],
        [[4.375, -1.25], [-1.25, -0.0], [0.75, 0.5]],
        [[inf], [nan]],
    ],
    "triangular_solve_grad": [
        [
            [-3.0013772548277524, 0.0, 0.0],
            [0.8081721116350127, 3.460442219050643, 0.0],
            [0.23432645158170956, 0.41161531749622593, -0.045094230092746226],
        ],
        [
            [0.3234976586142333, -2.6778795962135193],
            [0.2527359313312394, 1.060908042966252],
            [-0.16341090521590299, 0.07091554636580656],
        ],
    ],
    "triangular_solve_grad_upper_adjoint": [
        [
            [-2.5446948205653044, 1.042498563216722, 0.23432645158170956],
            [0.0, 2.8295589733301463, 0.1772888659145164],
            [0.0, 0.0, -0.0015440272282342404],
        ],
        [
            [0.8213499477693271, -1.7233448727959773],
            [0.08932502611533644, 1.1318235893320585],
            [-0.16341090521590299, 0.07091554636580656],
        ],
    ],
    "triangular_solve_broadcast": [
        [[1.0, -1.0], [1.0, -3.5], [0.375, 1.5]],
        [[0.5, -0.5], [0.5, -1.75], [0.1875, 0.75]],
    ],
    "cholesky": [[2.0, 0.0, 0.0], [0.5, 1.6583123951777, 0.0], [0.25, 0.04522670168666455, 1.391206147720224]],
    "cholesky_grad": [
        [
            [0.28264069889248916, -0.22526034815764145, 0.18939510517536995],
            [-0.22526034815764145, -0.2033192283299994, 0.22873624872023982],
            [0.18939510517536995, 0.22873624872023982, -0.052292765542707356],
        ]
    ],
    "cholesky_f32": [[2.0, 0.0, 0.0], [0.5, 1.658312439918518, 0.0], [0.25, 0.045226700603961945, 1.39120614528656]],
    "qr": [
        [
            [-0.3123475237772122, 0.8381163549234939, -0.447213595499958],
            [-0.9370425713316364, -0.34921514788478913, 0.0],
            [-0.15617376188860607, 0.41905817746174695, 0.8944271909999159],
        ],
        [
            [-3.2015621187164243, 0.15617376188860588, -2.498780190217697],
            [0.0, 2.4445060351935237, 0.9778024140774094],
            [0.0, 0.0, 3.5777087639996634],
        ],
    ],
    "qr_tall": [
        [
            [-0.16903085094570325, 0.948683298050514],
            [-0.5070925528371099, -0.3162277660168368],
            [-0.8451542547285166, -8.881784197001252e-16],
        ],
        [[-5.916079783099616, -8.282511696339462], [0.0, 0.632455532033676]],
    ],
    "qr_tall_full": [
        [
            [-0.16903085094570325, 0.948683298050514, -0.267261241912423],
            [-0.5070925528371099, -0.3162277660168368, -0.8017837257372736],
            [-0.8451542547285166, -8.881784197001252e-16, 0.5345224838248488],
        ],
        [[-5.916079783099616, -8.282511696339462], [0.0, 0.632455532033676], [0.0, 0.0]],
    ],
    "qr_wide": [
        [[-0.44721359549995787, -0.8944271909999157], [-0.8944271909999157, 0.4472135954999581]],
        [[-2.23606797749979, -4.919349550499537, -8.497058314499197], [0.0, -0.8944271909999157, -1.3416407864998714]],
    ],
    "qr_grad": [
        [
            [0.40244592182386535, 0.7116641920965937, 0.2362761288589995],
            [0.7897816998259306, 0.46935158115526077, -0.05189777530046363],
            [0.29049822072900006, 1.133241373644522, -0.1895038999700629],
        ]
    ],
    "qr_grad_tall": [
        [
            [1.2866317590824623, -1.3302833992323164],
            [0.5670717815647667, -1.1096033250356783],
            [-1.7336582249923915, 0.039789497797140805],
        ]
    ],
    "qr_grad_wide": [
        [
            [-4.397277953559775, 0.0032816006614476575, 0.3855384745873938],
            [2.9294347614349525, -0.3187847650016861, -1.2662722527565355],
        ]
    ],
    "svd_values": [
        [4.961322540593481, 2.6888202679201303, 2.0989340663824985],
        [10.191428257097225, 0.36713768594389984],
    ],
    "svd_abs_vectors": [
        [
            [0.12985632380285303, 0.2997131460947585, 0.9451504458161097],
            [0.6271963007687468, 0.7631159006476238, 0.15581695184018324],
            [0.7679597225573804, 0.572561046733663, 0.28707440201599904],
        ],
        [
            [0.48281986663605225, 0.6334949393247725, 0.6046231373603292],
            [0.08071961984282416, 0.7196848605532328, 0.689592665609854],
            [0.8719915821577494, 0.28414408904704797, 0.3986136190669461],
        ],
    ],
    "svd_grad_values": [
        [
            [-0.27769943556175586, -0.14420690306489242, 0.31602994831427467],
            [0.5248157952643502, -0.290823651128088, 0.45560070897474597],
            [0.24704208243323014, 0.3670105449890486, 0.7099356900462145],
        ]
    ],
    "svd_grad": [
        [
            [-0.30192569217775833, -1.760387245171266, 1.8766924575723714],
            [5.2678023920158745, -0.5562028484915655, 4.373970962555553],
            [2.108175754755017, 1.7954311160529373, 7.310221998607226],
        ]
    ],
    "svd_grad_tall": [
        [
            [2.6545170842685017, 3.5424122180571125],
            [6.9897605626140935, 7.138124288349107],
            [9.399153629291943, 14.517026587654065],
        ]
    ],
    "svd_grad_wide": [
        [
            [1.7653629665646267, 4.438490444212402, 11.103370086090752],
            [4.172758377364002, 9.190581484068552, 13.167221028714557],
        ]
    ],
    "svd_grad_full": [
        [
            [2.4105162623716545, 3.728796199131094],
            [6.299893660243726, 7.6742040995661505],
            [9.574657212807537, 14.362597502570328],
        ]
    ],
    "eigh": [
        [1.880086902915053, 2.3983430193369975, 4.72157007774795],
        [
            [0.2530423616352546, 0.48194966042618015, 0.8388647614682254],
            [0.053438720828776244, 0.858797174672029, 0.5095210652088139],
            [0.9659781914382112, 0.17375827344454725, 0.19155729188765633],
        ],
    ],
    "eigh_grad": [
        [
            [-1.6152140886667579, 0.0, 0.0],
            [-5.944098627467332, 0.6013282336535604, 0.0],
            [-2.6049469716891114, -1.189478159416471, 3.4359872852834683],
        ]
    ],
    "eigvalsh_grad": [
        [
            [-0.10331065701094677, 0.0, 0.0],
            [-0.8300418860159577, 0.2933096601153609, 0.0],
            [-0.5321158349822539, -0.1392438304662139, 0.9341564662165833],
        ]
    ],
    "eigh_grad_unsymmetric_input": [
        [
            [-1.3935896937183676, 0.0, 0.0],
            [6.414506552732191, -4.341228786493872, 0.0],
            [-5.328754405833264, -3.0563588174495435, -1.8383566732586316],
        ]
    ],
    "logdet": [3.0582374789053883, nan],
    "logdet_grad": [
        [
            [0.2799436355096289, -0.08924377642085486, -0.06106153123532173],
            [-0.08924377642085486, 0.36402066697980273, -0.014091122592766557],
            [-0.06106153123532173, -0.014091122592766557, 0.516674495068107],
        ]
    ],
    "slogdet": [-1.0, 3.3322045101752042, [0.0, -inf]],
    "slogdet_grad": [
        [
            [0.21428571428571427, 0.3928571428571429, -0.125],
            [0.2857142857142857, -0.14285714285714285, 0.0],
            [-0.14285714285714285, 0.07142857142857142, 0.25],
        ]
    ],
    "band_part": [
        [[1.0, 0.0, 0.0], [3.0, -1.0, 0.0], [0.0, 1.0, 4.0]],
        [[1.0, 2.0, 0.0], [0.0, -1.0, 2.0], [0.0, 0.0, 4.0]],
        [[1.0, 0.0, 0.0], [3.0, -1.0, 0.0], [0.5, 1.0, 4.0]],
    ],
    "band_part_grad": [
        [
            [1.0, 0.5403023058681398, 0.0],
            [0.0, -0.6536436208636119, 0.28366218546322625],
            [0.0, 0.0, -0.14550003380861354],
        ]
    ],
    "trace_diag_transpose": [4.0, [1.0, -1.0, 4.0], [2, 4, 3]],
    "set_diag": [[9.0, 2.0, 0.0], [3.0, 8.0, 2.0], [0.5, 1.0, 7.0]],
}

SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
GENERAL = np.array([[1.0, 2.0, 0.0], [3.0, -1.0, 2.0], [0.5, 1.0, 4.0]])
RHS = np.array([[1.0, -1.0], [2.0, 0.5], [3.0, 2.0]])
TALL = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
WIDE = TALL.T.copy()
F64 = tf.float64


def g64(fn, *values):
    return grads(fn, *values, dtype=F64)


def close(actual, name, rtol=1e-9, atol=1e-10):
    assert_tf(actual, TF[name], rtol=rtol, atol=atol)


def _stacked(*tensors):
    return tf.concat([tf.reshape(t, [-1]) for t in tensors], 0)


def _sign_free(*tensors):
    return tf.concat([tf.reshape(t * t, [-1]) for t in tensors], 0)


def test_solve_as_tf():
    close([tf.linalg.solve(GENERAL, RHS), tf.linalg.solve(GENERAL, RHS, adjoint=True)], "solve")
    close(g64(lambda a, b: tf.linalg.solve(a, b), GENERAL, RHS), "solve_grad")
    close(g64(lambda a, b: tf.linalg.solve(a, b, adjoint=True), GENERAL, RHS), "solve_grad_adjoint")
    with pytest.raises(InvalidArgumentError, match="Input matrix is not invertible"):
        tf.linalg.solve(tf.zeros([2, 2]), tf.ones([2, 1]))
    with pytest.raises(InvalidArgumentError, match="same rank"):
        tf.linalg.solve(tf.constant(GENERAL), tf.constant([1.0, 2.0, 3.0], F64))
    with pytest.raises(InvalidArgumentError, match="cannot compute MatrixSolve"):
        tf.linalg.solve(tf.constant(GENERAL), tf.constant(RHS, tf.float32))


def test_triangular_solve_as_tf():
    solved = [
        tf.linalg.triangular_solve(GENERAL, RHS),
        tf.linalg.triangular_solve(GENERAL, RHS, lower=False),
        tf.linalg.triangular_solve(GENERAL, RHS, adjoint=True),
    ]
    assert_tf(solved, TF["triangular_solve"][:3], rtol=1e-12, atol=1e-12)
    singular = tf.linalg.triangular_solve(tf.zeros([2, 2]), tf.ones([2, 1])).numpy()  # inf/nan, no error
    assert singular[0, 0] == inf and np.isnan(singular[1, 0])
    close(g64(lambda a, b: tf.linalg.triangular_solve(a, b), GENERAL, RHS), "triangular_solve_grad")
    close(
        g64(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), GENERAL, RHS),
        "triangular_solve_grad_upper_adjoint",
    )
    batch = tf.stack([tf.constant(GENERAL), 2.0 * tf.constant(GENERAL)])
    close(tf.linalg.triangular_solve(batch, RHS), "triangular_solve_broadcast")


def test_triangular_solve_broadcast_gradient_sums_over_the_batch():
    a, b = tf.Variable(GENERAL), tf.Variable(np.stack([RHS, 2 * RHS]))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.linalg.triangular_solve(a, b) ** 2)
    ga, gb = tape.gradient(y, [a, b])
    assert ga.shape == (3, 3) and gb.shape == (2, 3, 2)
    each = [tf.Variable(GENERAL) for _ in range(2)]
    with tf.GradientTape() as tape:
        y = sum(tf.reduce_sum(tf.linalg.triangular_solve(v, k * RHS) ** 2) for v, k in zip(each, (1.0, 2.0)))
    np.testing.assert_allclose(ga.numpy(), sum(g.numpy() for g in tape.gradient(y, each)), rtol=1e-12)


def test_cholesky_as_tf():
    close(tf.linalg.cholesky(SPD), "cholesky")
    assert_tf(tf.linalg.cholesky(tf.constant(SPD, tf.float32)), TF["cholesky_f32"], rtol=1e-6)
    close(g64(tf.linalg.cholesky, SPD), "cholesky_grad")  # symmetric, as TF's
    with pytest.raises(InvalidArgumentError, match="int32 is not in the list"):
        tf.linalg.cholesky(tf.constant([[1, 0], [0, 1]]))
    failed = tf.linalg.cholesky(GENERAL).numpy()  # not positive definite: NaN below the diagonal
    assert np.isnan(failed[np.tril_indices(3)]).all()


def test_qr_as_tf():
    close(list(tf.linalg.qr(GENERAL)), "qr")
    close(list(tf.linalg.qr(TALL)), "qr_tall")
    close(list(tf.linalg.qr(TALL, full_matrices=True)), "qr_tall_full")
    close(list(tf.linalg.qr(WIDE)), "qr_wide")
    factors = tf.linalg.qr(GENERAL)  # a namedtuple Qr(q, r), as TF's
    assert factors._fields == ("q", "r")
    np.testing.assert_allclose((factors.q @ factors.r).numpy(), GENERAL, atol=1e-12)
    for name, matrix in (("qr_grad", GENERAL), ("qr_grad_tall", TALL), ("qr_grad_wide", WIDE)):
        close(g64(lambda a: _stacked(*tf.linalg.qr(a)), matrix), name, rtol=1e-8, atol=1e-9)


def test_qr_gradient_not_implemented_where_tf_has_none():
    a = tf.Variable(TALL)
    with tf.GradientTape() as tape:
        _, r = tf.linalg.qr(a, full_matrices=True)
    with pytest.raises(UnimplementedError, match="full_matrices"):
        tape.gradient(r, a)


def test_svd_as_tf():
    close([tf.linalg.svd(GENERAL, compute_uv=False), tf.linalg.svd(TALL, compute_uv=False)], "svd_values")
    s, u, v = tf.linalg.svd(GENERAL)
    close([tf.abs(u), tf.abs(v)], "svd_abs_vectors")
    np.testing.assert_allclose((u @ tf.linalg.diag(s) @ tf.transpose(v)).numpy(), GENERAL, atol=1e-12)
    close(g64(lambda a: tf.linalg.svd(a, compute_uv=False), GENERAL), "svd_grad_values")
    for name, matrix, full in (
        ("svd_grad", GENERAL, False),
        ("svd_grad_tall", TALL, False),
        ("svd_grad_wide", WIDE, False),
        ("svd_grad_full", TALL, True),
    ):
        close(
            g64(lambda a, full=full: _sign_free(*tf.linalg.svd(a, full_matrices=full)), matrix),
            name,
            rtol=1e-8,
            atol=1e-9,
        )


def test_eigh_as_tf():
    e, v = tf.linalg.eigh(SPD)
    close([e, tf.abs(v)], "eigh")
    assert_tf(tf.linalg.eigvalsh(SPD), TF["eigh"][0], rtol=1e-12)
    close(g64(lambda a: _sign_free(*tf.linalg.eigh(a)), SPD), "eigh_grad", rtol=1e-8, atol=1e-9)
    close(g64(tf.linalg.eigvalsh, SPD), "eigvalsh_grad")
    # Only the lower triangle is read, so the gradient lives there too.
    close(g64(lambda a: _sign_free(*tf.linalg.eigh(a)), GENERAL), "eigh_grad_unsymmetric_input", rtol=1e-8, atol=1e-9)


def test_determinants_as_tf():
    logdet = [tf.linalg.logdet(SPD), tf.linalg.logdet(GENERAL)]  # NaN: not positive definite
    np.testing.assert_allclose(logdet[0].numpy(), TF["logdet"][0], rtol=1e-12)
    assert np.isnan(logdet[1].numpy())
    close(g64(tf.linalg.logdet, SPD), "logdet_grad")
    sign, logabs = tf.linalg.slogdet(GENERAL)
    singular = tf.linalg.slogdet(tf.zeros([2, 2]))
    close([sign, logabs, list(singular)], "slogdet")
    assert singular.sign.dtype == tf.float32 and tf.linalg.slogdet(GENERAL).log_abs_determinant.dtype == F64
    close(g64(lambda a: tf.linalg.slogdet(a).log_abs_determinant, GENERAL), "slogdet_grad")


def test_band_part_and_the_small_ones_as_tf():
    close(
        [tf.linalg.band_part(GENERAL, 1, 0), tf.linalg.band_part(GENERAL, 0, -1), tf.linalg.band_part(GENERAL, -2, 0)],
        "band_part",
    )
    close(g64(lambda a: tf.linalg.band_part(a, 0, 1), GENERAL), "band_part_grad")
    assert tf.linalg.band_part(tf.constant([[1, 2], [3, 4]]), 0, 0).numpy().tolist() == [[1, 0], [0, 4]]
    with pytest.raises(
        InvalidArgumentError, match=r"num_lower must be negative or less or equal to number of rows \(3\)"
    ):
        tf.linalg.band_part(GENERAL, 5, 5)
    trace, diagonal, transposed = TF["trace_diag_transpose"]
    assert tf.linalg.trace(GENERAL).numpy() == trace
    assert tf.linalg.diag_part(GENERAL).numpy().tolist() == diagonal
    assert tf.linalg.matrix_transpose(tf.zeros([2, 3, 4])).shape.as_list() == transposed
    close(tf.linalg.set_diag(GENERAL, tf.constant([9.0, 8.0, 7.0], F64)), "set_diag")
    np.testing.assert_array_equal(tf.linalg.adjoint(GENERAL).numpy(), GENERAL.T)


def test_cholesky_solve_solves():
    chol = tf.linalg.cholesky(SPD)
    np.testing.assert_allclose(tf.linalg.cholesky_solve(chol, RHS).numpy(), np.linalg.solve(SPD, RHS), rtol=1e-12)


def test_batched_decompositions_match_each_matrix():
    rng = np.random.default_rng(3)
    batch = rng.normal(size=(2, 3, 4, 4))
    spd = batch @ np.swapaxes(batch, -1, -2) + 4 * np.eye(4)
    chol = tf.linalg.cholesky(spd).numpy()
    s = tf.linalg.svd(batch, compute_uv=False).numpy()
    e = tf.linalg.eigvalsh(spd).numpy()
    for index in np.ndindex(2, 3):
        np.testing.assert_allclose(chol[index], np.linalg.cholesky(spd[index]), rtol=1e-12)
        np.testing.assert_allclose(s[index], np.linalg.svd(batch[index], compute_uv=False), rtol=1e-12)
        np.testing.assert_allclose(e[index], np.linalg.eigvalsh(spd[index]), rtol=1e-12)


def test_decompositions_refuse_integers_with_the_fix():
    for op in (tf.linalg.qr, tf.linalg.svd, tf.linalg.eigh, tf.linalg.cholesky):
        with pytest.raises(InvalidArgumentError, match="cast first"):
            op(tf.constant([[2, 1], [1, 2]]))

"""CHLO special-function decompositions (part of `--chlo-legalize-to-stablehlo`): upstream's
Cephes/Eigen polynomial approximations for erf and erfc, Giles' polynomials for erf_inv and
Cephes' Chebyshev series for bessel_i1e, evaluated in f32 (f16/bf16 upcast) or f64."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..dialects.stablehlo.elementwise_numerics import num_bits
from ..ir.core import Value
from ..ir.types import FloatType, IntegerType, TensorType, numpy_dtype
from .chlo_legalize import Real, Rewriter, _real_pattern, pattern

# erf on [-4, 4] in f32: x * ALPHA(x^2) / BETA(x^2) (Eigen).
_ERF_F32_ALPHA = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                  -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                  -1.60960333262415e-02)
_ERF_F32_BETA = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                 -7.37332916720468e-03, -1.42647390514189e-02)
# erf for |x| <= 1 in f32: x * T(x^2); erfc for |x| >= 1: e^(-x^2) / |x| * P or R(1/x^2).
_ERF_F32_T = (7.853861353153693e-5, -8.010193625184903e-4, 5.188327685732524e-3,
              -2.685381193529856e-2, 1.128358514861418e-1, -3.761262582423300e-1,
              1.128379165726710e+0)
_ERFC_F32_P = (2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1,
               -5.824733027278666e-1, 6.210004621745983e-1, -4.944515323274145e-1,
               3.404879937665872e-1, -2.741127028184656e-1, 5.638259427386472e-1)
_ERFC_F32_R = (-1.047766399936249e+1, 1.297719955372516e+1, -7.495518717768503e+0,
               2.921019019210786e+0, -1.015265279202700e+0, 4.218463358204948e-1,
               -2.820767439740514e-1, 5.641895067754075e-1)
_MAXLOG_F32 = 88.72283905206835
# f64 (Cephes): erf for |x| < 1 is x T(x^2) / U(x^2); erfc for |x| >= 1 is
# e^(-x^2) P(|x|) / Q(|x|) below 8 and e^(-x^2) R(|x|) / S(|x|) beyond.
_ERF_F64_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
              7.00332514112805075473e3, 5.55923013010394962768e4)
_ERF_F64_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2,
              4.59432382970980127987e3, 2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC_F64_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1,
               7.46321056442269912687e0, 4.86371970985681366614e1, 1.96520832956077098242e2,
               5.26445194995477358631e2, 9.34528527171957607540e2, 1.02755188689515710272e3,
               5.57535335369399327526e2)
_ERFC_F64_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1,
               3.54937778887819891062e2, 9.75708501743205489753e2, 1.82390916687909736289e3,
               2.24633760818710981792e3, 1.65666309194161350182e3, 5.57535340817727675546e2)
_ERFC_F64_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
               6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0)
_ERFC_F64_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0,
               1.20489539808096656605e1, 1.70814450747565897222e1, 9.60896809063285878198e0,
               3.36907645100081516050e0)
_MAXLOG_F64 = 7.09782712893383996843e2


def _is_f64(e: Real) -> bool:
    return getattr(e.t.element, "name", "") == "f64"


def polynomial(e: Real, x: Value, coefficients: Sequence[float]) -> Value:
    """Horner's rule, highest-order coefficient first."""
    poly = e.const(coefficients[0])
    for c in coefficients[1:]:
        poly = e("add", e("multiply", poly, x), e.const(c))
    return poly


def _erf_small(x: Value, e: Real) -> Value:
    """erf for |x| <= 1: x T(x^2) / U(x^2) (f64), x T(x^2) (f32)."""
    x2 = e("multiply", x, x)
    if _is_f64(e):
        return e("divide", e("multiply", x, polynomial(e, x2, _ERF_F64_T)),
                 polynomial(e, x2, _ERF_F64_U))
    return e("multiply", x, polynomial(e, x2, _ERF_F32_T))


def _erfc_large(x: Value, e: Real) -> Value:
    """erfc for |x| >= 1 (0 once e^(-x^2) underflows; 2 - erfc(-x) for negative x), ops in
    upstream's order."""
    z = e("negate", x2 := e("multiply", x, x))
    if _is_f64(e):
        exp_z = e("exponential", z)
        a = e("abs", x)
        near = e("divide", e("multiply", exp_z, polynomial(e, a, _ERFC_F64_P)),
                 polynomial(e, a, _ERFC_F64_Q))
        far = e("divide", e("multiply", exp_z, polynomial(e, a, _ERFC_F64_R)),
                polynomial(e, a, _ERFC_F64_S))
        approx = e.select(e.compare("LT", a, e.const(8.0)), near, far)
        maxlog = _MAXLOG_F64
        two = None
    else:
        a = e("abs", x)
        one = e.const(1.0)
        inv_x2 = e("divide", one, x2)
        scale = e("multiply", e("exponential", z), e("divide", one, a))
        two = e.const(2.0)
        poly = e.select(e.compare("LT", a, two), polynomial(e, inv_x2, _ERFC_F32_P),
                        polynomial(e, inv_x2, _ERFC_F32_R))
        approx = e("multiply", scale, poly)
        maxlog = _MAXLOG_F32
    clamped = e.select(e.compare("LT", z, e.const(-maxlog)), zero := e.const(0.0), approx)
    below = e.compare("LT", x, zero)
    return e.select(below, e("subtract", two or e.const(2.0), clamped), clamped)


def _one_minus_other(x: Value, e: Real, first: Callable[[Value, Real], Value],
                     other: Callable[[Value, Real], Value], first_is_small: bool) -> Value:
    """first(x), 1, 1 - other(x), then select by |x| < 1 (upstream's f64 erf and erfc
    layout)."""
    primary = first(x, e)
    one = e.const(1.0)
    secondary = e("subtract", one, other(x, e))
    small = e.compare("LT", e("abs", x), one)
    if first_is_small:
        return e.select(small, primary, secondary)
    return e.select(small, secondary, primary)


@pattern("chlo.erf")
@_real_pattern
def _erf(x: Value, e: Real) -> Value:
    """f32: Eigen's rational approximation on [-4, 4], clamped to [-1, 1]; f64: Cephes
    (x T(x^2) / U(x^2) below 1, 1 - erfc beyond)."""
    if _is_f64(e):
        return _one_minus_other(x, e, _erf_small, _erfc_large, True)
    clamped = e.rw.create("stablehlo.clamp", [e.const(-4.0), x, e.const(4.0)], e.t)
    x2 = e("multiply", clamped, clamped)
    alpha, beta = polynomial(e, x2, _ERF_F32_ALPHA), polynomial(e, x2, _ERF_F32_BETA)
    ratio = e("divide", e("multiply", clamped, alpha), beta)
    return e.rw.create("stablehlo.clamp", [e.const(-1.0), ratio, e.const(1.0)], e.t)


@pattern("chlo.erfc")
@_real_pattern
def _erfc(x: Value, e: Real) -> Value:
    """1 - erf(x) for |x| < 1, the Cephes erfc approximations beyond."""
    return _one_minus_other(x, e, _erfc_large, _erf_small, False)


_ERF_INV_F32_LOW = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                    0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERF_INV_F32_HIGH = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                     0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_ERF_INV_F64_625 = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356)
_ERF_INV_F64_16 = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635)
_ERF_INV_F64_BIG = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221)


@pattern("chlo.erf_inv")
@_real_pattern
def _erf_inv(x: Value, e: Real) -> Value:
    """Giles' approximation: w = -log1p(-x^2), a polynomial in a shifted w (f32: two
    branches at w = 5; f64: three at 6.25 and 16) times x; +-inf at +-1."""
    w = e("negate", e("log_plus_one", e("multiply", x, e("negate", x))))
    if _is_f64(e):
        lt625 = e.compare("LT", w, e.const(6.25))
        lt16 = e.compare("LT", w, e.const(16.0))

        def coefficient(i: int) -> Value:
            c = e.const(_ERF_INV_F64_625[i])
            if i < 19:
                c = e.select(lt625, c, e.const(_ERF_INV_F64_16[i]))
            if i < 17:
                c = e.select(lt16, c, e.const(_ERF_INV_F64_BIG[i]))
            return c

        root = e("sqrt", w)
        minus = e("subtract", w, e.const(3.125))
        shifted = e.select(lt625, minus, e("subtract", root, e.select(
            lt16, e.const(3.25), e.const(5.0))))
        p = coefficient(0)
        for i in range(1, 17):
            p = e("add", coefficient(i), e("multiply", p, shifted))
        for i in range(17, 19):
            p = e.select(lt16, e("add", coefficient(i), e("multiply", p, shifted)), p)
        for i in range(19, 23):
            p = e.select(lt625, e("add", coefficient(i), e("multiply", p, shifted)), p)
    else:
        low = e.compare("LT", w, e.const(5.0))
        shifted = e.select(low, e("subtract", w, e.const(2.5)),
                           e("subtract", e("sqrt", w), e.const(3.0)))
        p = e.select(low, e.const(_ERF_INV_F32_LOW[0]), e.const(_ERF_INV_F32_HIGH[0]))
        for lo, hi in zip(_ERF_INV_F32_LOW[1:], _ERF_INV_F32_HIGH[1:], strict=True):
            p = e("add", e.select(low, e.const(lo), e.const(hi)), e("multiply", p, shifted))
    result = e("multiply", p, x)
    at_one = e.compare("EQ", e("abs", x), e.const(1.0))
    return e.select(at_one, e("multiply", x, e.const(math.inf)), result)


# bessel_i1e (Cephes): Chebyshev series in |x| / 2 - 2 for |x| <= 8, in 32 / |x| - 2 beyond.
_I1E_F64_A = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
    3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
    9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
    -8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
    4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
    -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
    2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
    -1.76416518357834055153e-1, 2.52587186443633654823e-1)
_I1E_F64_B = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
    3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
    -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
    7.78576235018280120474e-1)
# The f32 series are the tails of the f64 ones.
_I1E_F32_A = _I1E_F64_A[12:]
_I1E_F32_B = _I1E_F64_B[18:]


def chebyshev(e: Real, x: Value, coefficients: Sequence[float]) -> Value:
    """Clenshaw's recurrence for sum c_i T_i(x / 2) as Cephes' chbevl: (b0 - b2) / 2
    (three zero constants, as upstream)."""
    b0, b1, b2 = e.const(0.0), e.const(0.0), e.const(0.0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = e("add", e("subtract", e("multiply", x, b1), b2), e.const(c))
    return e("multiply", e("subtract", b0, b2), e.const(0.5))


@pattern("chlo.bessel_i1e")
@_real_pattern
def _bessel_i1e(x: Value, e: Real) -> Value:
    """sign(x) * (|x| A(|x|/2 - 2) for |x| <= 8, B(32/|x| - 2) / sqrt(|x|) beyond)."""
    a_coefficients, b_coefficients = ((_I1E_F64_A, _I1E_F64_B) if _is_f64(e)
                                      else (_I1E_F32_A, _I1E_F32_B))
    z = e("abs", x)
    half, two, thirty_two, eight = e.const(0.5), e.const(2.0), e.const(32.0), e.const(8.0)
    near = e("multiply", z, chebyshev(e, e("subtract", e("multiply", half, z), two),
                                      a_coefficients))
    far = chebyshev(e, e("subtract", e("divide", thirty_two, z), two), b_coefficients)
    far = e("divide", far, e("sqrt", z))
    value = e.select(e.compare("LE", z, eight), near, far)
    return e("multiply", e("sign", x), value)


# ---- next_after, zeta, polygamma --------------------------------------------------------


def _signed(value: int, width: int) -> int:
    """`value` as a width-bit two's complement integer."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


@pattern("chlo.next_after")
def _next_after(rw: Rewriter) -> list[Value] | None:
    """On the bit patterns: step the magnitude down when x is further from 0 than y or the
    signs differ, up otherwise; from +-0 to the smallest subnormal signed like y; y when
    x == y; NaN when either is NaN."""
    x, y = rw.op.operands
    t = x.type
    if not (isinstance(t, TensorType) and isinstance(t.element, FloatType)):
        return None
    width = num_bits(numpy_dtype(t.element))
    int_t = TensorType(t.shape, IntegerType(width))
    e, ei = Real(rw, t), Real(rw, int_t)
    x_bits = rw.create("stablehlo.bitcast_convert", [x], int_t)
    y_bits = rw.create("stablehlo.bitcast_convert", [y], int_t)
    nan_input = rw.create("stablehlo.or", [e.compare("NE", x, x), e.compare("NE", y, y)],
                          e.pred)
    nan_bits = rw.create("stablehlo.bitcast_convert", [e.const(math.nan)], int_t)
    sign_mask = ei.const(_signed(1 << (width - 1), width))
    magnitude_mask = ei.const(_signed(~(1 << (width - 1)), width))
    x_abs, y_abs = ei("and", x_bits, magnitude_mask), ei("and", y_bits, magnitude_mask)
    equal = e.compare("EQ", x, y)
    zero = ei.const(0)
    x_zero, y_zero = ei.compare("EQ", x_abs, zero), ei.compare("EQ", y_abs, zero)
    x_sign, y_sign = ei("and", x_bits, sign_mask), ei("and", y_bits, sign_mask)
    one = ei.const(1)
    smallest = ei("or", y_sign, one)
    disagree = ei.compare("NE", x_sign, y_sign)
    smaller = rw.create("stablehlo.or", [ei.compare("GT", x_abs, y_abs), disagree], ei.pred)
    stepped = ei("add", x_bits, ei.select(smaller, ei.const(-1), one))
    result = ei.select(x_zero, ei.select(y_zero, y_bits, smallest), stepped)
    result = ei.select(equal, y_bits, result)
    result = ei.select(nan_input, nan_bits, result)
    return [rw.create("stablehlo.bitcast_convert", [result], rw.op.result_types[0])]

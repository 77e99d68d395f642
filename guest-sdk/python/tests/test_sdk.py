"""Unit tests of the pure-Python parts of the SDK (no componentize-py needed):
`python3 -m unittest discover -s guest-sdk/python/tests` (run by `make test`)."""

import sys
import unittest
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tfwasm_provider as tf  # noqa: E402
from tfwasm_provider import cty  # noqa: E402
from tfwasm_provider.diagnostics import from_exception  # noqa: E402
from tfwasm_provider.provider import load_private, plan_change, save_private, validate_attributes  # noqa: E402


class Codec(unittest.TestCase):
    def roundtrip(self, value, ty):
        self.assertEqual(cty.decode(cty.encode(value, ty), ty), value)

    def test_go_cty_bytes(self):
        # What Terraform sends and expects, byte for byte.
        self.assertEqual(cty.encode(None, cty.STRING), b"\xc0")
        self.assertEqual(cty.encode(tf.UNKNOWN, cty.STRING), b"\xd4\x00\x00")
        self.assertEqual(cty.encode("hi", cty.STRING), b"\xa2hi")
        self.assertEqual(cty.encode(1, cty.NUMBER), b"\x01")
        self.assertEqual(cty.encode(-1, cty.NUMBER), b"\xff")
        self.assertEqual(cty.encode(1.5, cty.NUMBER), b"\xcb?\xf8\x00\x00\x00\x00\x00\x00")
        # Objects: attributes in name order, every attribute present.
        ty = tf.object_of({"b": cty.BOOL, "a": cty.STRING})
        self.assertEqual(cty.encode({"b": True}, ty), b"\x82\xa1a\xc0\xa1b\xc3")
        # Dynamic: [type JSON as bytes, value].
        self.assertEqual(cty.encode("x", cty.DYNAMIC), b'\x92\xc4\x08"string"\xa1x')

    def test_round_trips(self):
        self.roundtrip("héllo" * 40, cty.STRING)
        for n in (0, 127, 128, 255, 65536, 2**40, -33, -(2**40), 2**70, Decimal("0.1"), 2.5):
            self.roundtrip(n, cty.NUMBER)
        self.roundtrip(["a", None, tf.UNKNOWN], tf.list_of(cty.STRING))
        self.roundtrip({"k": 1, "j": tf.UNKNOWN}, tf.map_of(cty.NUMBER))
        self.roundtrip(tf.Dynamic(tf.list_of(cty.BOOL), [True]), cty.DYNAMIC)
        self.roundtrip([1, "x"], tf.tuple_of([cty.NUMBER, cty.STRING]))
        # A set of 20 strings: longer than msgpack's fixed-size array header.
        self.roundtrip({"a": [f"x{i}" for i in range(20)]}, tf.object_of({"a": tf.set_of(cty.STRING)}))

    def test_sets_keep_every_element_holding_an_unknown(self):
        # go-cty: an unknown equals nothing, so two statements with unknown ids stay two;
        # wholly known duplicates merge.
        statement = tf.object_of({"sid": cty.STRING, "actions": tf.set_of(cty.STRING)})
        ty = tf.set_of(statement)
        u = {"sid": tf.UNKNOWN, "actions": ["s3:Get"]}
        k = {"sid": "a", "actions": ["s3:Get"]}
        self.assertEqual(cty.decode(cty.encode([u, u, k, k], ty), ty), [u, u, k])
        strings = tf.set_of(cty.STRING)
        self.assertEqual(cty.decode(cty.encode([tf.UNKNOWN, tf.UNKNOWN, "x", "x"], strings), strings),
                         [tf.UNKNOWN, tf.UNKNOWN, "x"])
        self.assertEqual(cty.from_json(["x", "x", "y"], strings), ["x", "y"])

    def test_equality_follows_the_type(self):
        strings = tf.set_of(cty.STRING)
        self.assertTrue(cty.equal(["a", "b"], ["b", "a"], strings))
        self.assertFalse(cty.equal(["a", "b"], ["b", "a"], tf.list_of(cty.STRING)))
        self.assertFalse(cty.equal([tf.UNKNOWN, tf.UNKNOWN], [tf.UNKNOWN, "a"], strings))
        self.assertTrue(cty.equal(1, 1.0, cty.NUMBER))
        self.assertTrue(cty.equal(0.1, Decimal("0.1"), cty.NUMBER))
        nested = tf.set_of(tf.object_of({"tags": tf.set_of(cty.STRING)}))
        self.assertTrue(cty.equal([{"tags": ["x", "y"]}], [{"tags": ["y", "x"]}], nested))

    def test_refined_unknowns_decode_as_unknown(self):
        # Extension code 12 carries refinements (e.g. "not null"); the value is unknown.
        self.assertIs(cty.decode(b"\xc7\x03\x0c\x81\x01\xc2", cty.STRING), tf.UNKNOWN)

    def test_bad_input_says_where(self):
        ty = tf.object_of({"tags": tf.map_of(cty.STRING)})
        with self.assertRaises(cty.CtyError) as caught:
            cty.encode({"tags": {"env": 1}}, ty)
        self.assertEqual(str(caught.exception), "tags.env: a string is required, not int")
        with self.assertRaises(cty.CtyError):
            cty.decode(b"\x81\xa1x\xc0", ty)  # an attribute the type does not have
        with self.assertRaises(cty.CtyError):
            cty.decode(b"\xa2h", cty.STRING)  # truncated
        with self.assertRaises(cty.CtyError):
            cty.decode(b"\xc0\xc0", cty.STRING)  # trailing bytes
        with self.assertRaises(cty.CtyError):
            cty.decode(b"\x91" * 500 + b"\xc0", tf.list_of(cty.DYNAMIC))

    def test_json_state(self):
        ty = tf.object_of({"n": cty.NUMBER, "s": cty.STRING})
        self.assertEqual(cty.from_json({"n": 2, "s": "x"}, ty), {"n": 2, "s": "x"})
        with self.assertRaises(cty.CtyError):
            cty.from_json({"n": 2, "other": 1}, ty)


class Greeting(tf.Resource):
    type_name = "t_greeting"
    schema = tf.Schema(
        [
            tf.string("name", required=True, requires_replace=True, validators=[lambda v: None if v else "empty"]),
            tf.string("template", optional=True, computed=True, default="Hello, {name}!"),
            tf.string("message", computed=True),
            tf.string("id", computed=True, use_state_for_unknown=True),
        ]
    )


def obj(**attrs):
    return {"name": None, "template": None, "message": None, "id": None, **attrs}


class Planning(unittest.TestCase):
    def setUp(self):
        self.r = Greeting()
        self.ctx = tf.Context()

    def test_create_fills_defaults_and_leaves_computed_unknown(self):
        config = obj(name="x")
        planned, replace = plan_change(self.r, self.ctx, None, config, config)
        self.assertEqual(planned["template"], "Hello, {name}!")
        self.assertIs(planned["message"], tf.UNKNOWN)
        self.assertIs(planned["id"], tf.UNKNOWN)
        self.assertEqual(replace, [])

    def test_no_change_plans_the_prior_state(self):
        prior = obj(name="x", template="Hello, {name}!", message="Hello, x!", id="g-x")
        config = obj(name="x")
        planned, replace = plan_change(self.r, self.ctx, prior, dict(prior), config)
        self.assertEqual(planned, prior)
        self.assertEqual(replace, [])

    def test_update_keeps_state_for_unknown_and_marks_the_rest(self):
        prior = obj(name="x", template="Hello, {name}!", message="Hello, x!", id="g-x")
        config = obj(name="x", template="Hi {name}")
        proposed = {**prior, "template": "Hi {name}"}
        planned, replace = plan_change(self.r, self.ctx, prior, proposed, config)
        self.assertEqual(planned["id"], "g-x", "use_state_for_unknown")
        self.assertIs(planned["message"], tf.UNKNOWN)
        self.assertEqual(replace, [])

    def test_removing_a_value_returns_to_the_default_as_a_change(self):
        prior = obj(name="x", template="Hi {name}", message="Hi x", id="g-x")
        config = obj(name="x")
        planned, _ = plan_change(self.r, self.ctx, prior, dict(prior), config)
        self.assertEqual(planned["template"], "Hello, {name}!")
        self.assertIs(planned["message"], tf.UNKNOWN)

    def test_a_requires_replace_change_replaces(self):
        prior = obj(name="x", template="Hello, {name}!", message="Hello, x!", id="g-x")
        config = obj(name="y")
        proposed = {**prior, "name": "y"}
        planned, replace = plan_change(self.r, self.ctx, prior, proposed, config)
        self.assertEqual(replace, ["name"])
        self.assertIs(planned["id"], tf.UNKNOWN, "a new object gets a new id")

    def test_destroy(self):
        prior = obj(name="x", template="t", message="m", id="i")
        self.assertEqual(plan_change(self.r, self.ctx, prior, None, None), (None, []))

    def test_validators_run_on_known_values(self):
        self.assertEqual(validate_attributes(self.r.schema, obj(name=tf.UNKNOWN)), [])
        (problem,) = validate_attributes(self.r.schema, obj(name=""))
        self.assertEqual((problem.summary, problem.detail, problem.path), ("Invalid attribute value", "empty", ["name"]))

    def test_declaration_mistakes_are_reported(self):
        bad = tf.Schema([tf.string("a"), tf.string("b", optional=True, default="x")])
        self.assertEqual(len(bad.problems()), 2)


class Diagnostics(unittest.TestCase):
    def test_an_exception_carries_its_traceback(self):
        def render():
            return "{oops}".format(name="x")

        try:
            render()
        except KeyError as exc:
            d = from_exception(exc, "t_greeting apply")
        self.assertEqual(d.summary, "Unexpected error in t_greeting apply")
        self.assertIn("The provider raised KeyError: 'oops'", d.detail)
        self.assertIn("Traceback (most recent call last)", d.detail)
        self.assertIn("in render", d.detail)

    def test_error_is_its_diagnostic(self):
        d = from_exception(tf.Error("Bad", "detail", ["tags", tf.Key("env")]), "x")
        self.assertEqual((d.summary, d.detail, d.path), ("Bad", "detail", ["tags", "env"]))
        self.assertIsInstance(d.path[1], tf.Key)


class PrivateState(unittest.TestCase):
    def test_bytes_are_the_rust_sdks(self):
        # Compact JSON with sorted keys, empty for none: either SDK reads what the other wrote.
        ctx = tf.Context()
        self.assertEqual(save_private(ctx), b"")
        ctx.set_private("etag", "v2")
        ctx.set_private("count", 3)
        self.assertEqual(save_private(ctx), b'{"count":3,"etag":"v2"}')
        ctx.set_private("note", "née")
        self.assertEqual(save_private(ctx), '{"count":3,"etag":"v2","note":"née"}'.encode())
        ctx.set_private("note", None)
        again = tf.Context(private=load_private(save_private(ctx)))
        self.assertEqual(again.private("etag"), "v2")
        again.set_private("etag", None)
        self.assertIsNone(again.private("etag"))
        self.assertEqual(save_private(again), b'{"count":3}')
        self.assertEqual(load_private(b""), {})

    def test_bad_keys_values_and_bytes_are_errors(self):
        ctx = tf.Context()
        for key in ("", ".sdk"):
            with self.assertRaises(tf.Error) as caught:
                ctx.set_private(key, 1)
            self.assertEqual(caught.exception.diagnostic.summary, "Invalid private state key")
        with self.assertRaises(tf.Error) as caught:
            ctx.set_private("when", object())
        self.assertEqual(caught.exception.diagnostic.summary, "Invalid private state value")
        for data in (b"not json", b"[1]"):
            with self.assertRaises(tf.Error) as caught:
                load_private(data)
            self.assertEqual(caught.exception.diagnostic.summary, "Unable to read private state")


class ReportCreated(unittest.TestCase):
    def test_unknowns_become_null_and_unknown_set_elements_go(self):
        ty = tf.object_of({
            "id": tf.STRING,
            "size": tf.NUMBER,
            "tags": tf.set_of(tf.object_of({"k": tf.STRING, "v": tf.STRING})),
            "names": tf.set_of(tf.STRING),
        })
        planned = {
            "id": "obj-7",
            "size": tf.UNKNOWN,
            "tags": [{"k": "a", "v": tf.UNKNOWN}, {"k": "a", "v": tf.UNKNOWN}],
            "names": ["x", tf.UNKNOWN],
        }
        reported = cty.known_or_null(planned, ty)
        self.assertTrue(cty.is_wholly_known(reported))
        self.assertEqual(reported, {"id": "obj-7", "size": None, "tags": [{"k": "a", "v": None}], "names": ["x"]})
        self.assertEqual(cty.decode(cty.encode(reported, ty), ty), reported)

    def test_the_reporter_is_told_the_state_is_a_created_ones(self):
        seen = []
        ctx = tf.Context(reporter=lambda state, created: seen.append((state, created)))
        ctx.report_created({"id": "1"})
        ctx.report_state({"id": "2"})
        self.assertEqual(seen, [({"id": "1"}, True), ({"id": "2"}, False)])
        with self.assertRaises(tf.Error):
            tf.Context().report_created({"id": "1"})


if __name__ == "__main__":
    unittest.main()

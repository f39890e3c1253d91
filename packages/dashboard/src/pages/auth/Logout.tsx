/** Logs out: the server revokes the session and clears its cookies; the dashboard shows the login page. */
import { useNavigate } from "react-router"
import { client } from "../../api/client.js"
import { useAction } from "../../api/hooks.js"
import { useSession } from "../../session.js"

export const LogoutButton = () => {
  const session = useSession()
  const navigate = useNavigate()
  const logout = useAction(() => client.auth.logout())
  return (
    <button
      type="button"
      className="secondary"
      disabled={logout.pending}
      onClick={async () => {
        // Whatever the answer (a 401 means the session had already ended), the person is logged out here.
        await logout.run()
        session.signedOut()
        navigate("/login", { replace: true })
      }}
    >
      Log out
    </button>
  )
}
